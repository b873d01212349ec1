import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Task } from '@a2a-js/sdk';
import { afterAll, describe, expect, it } from 'vitest';
import { STATUS_METADATA_KEY } from '../../functions/core/a2a/identifiers.js';
import { serveNotesOverHttp } from '../support/mcp-notes-stateless-http.js';
import { envelopeMessage, statusText, textMessage } from '../support/messages.js';
import { clientAt, sendRequest, startNotesStack } from './stack-client.js';
import { freePort, type StackProcess } from './stack-process.js';

const TOKEN = 'approval-crash-token';

/**
 * kill -9 of `npm start`'s process between a participant's approval and the approved call's
 * result: the notes server (in this process, over Streamable HTTP) holds the call until the stack
 * is dead. The restarted stack must not call again, nor guess: at most one call reaches the
 * server, the call goes back to its approvers as one that may or may not have run, and when they
 * leave it the model reads so (`tool.rejected`). The built-in demo model drives the
 * task ("delete note <id>"): its answers depend on the conversation alone, so a restart replays
 * nothing differently.
 */
describe('a crash between an approval and the approved call’s result', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tiny-harness-approval-crash-'));
  let stack: StackProcess | undefined;
  let notes: Awaited<ReturnType<typeof serveNotesOverHttp>> | undefined;

  afterAll(async () => {
    await stack?.stop();
    await notes?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('leaves at most one call on the server, and asks the approvers again about it', async () => {
    notes = await serveNotesOverHttp({ hold: 'delete_note' });
    notes.notes.set('n1', 'buy milk');
    const port = await freePort();
    const start = () => startNotesStack({ dataDir, port, token: TOKEN, notesUrl: notes?.url });
    stack = await start();
    const alice = await clientAt(stack.url, TOKEN);

    const parked = (await alice.sendMessage(sendRequest(textMessage('delete note n1')))) as Task;
    expect(parked.metadata?.[STATUS_METADATA_KEY]).toEqual({ sub_state: 'awaiting-approval' });
    // The approval's answer waits on the held call; the crash ends it.
    void alice
      .sendMessage(sendRequest(envelopeMessage('control', { action: 'approve' }), parked.id))
      .catch(() => undefined);
    await notes.arrived;
    await stack.crash();
    notes.release();

    stack = await start();
    const again = await clientAt(stack.url, TOKEN);
    const FATE_UNKNOWN =
      'this call may or may not have run (the harness stopped while it was being sent): approve to send it again, reject to leave it';
    /** The task once it is in `subState` with a status that says `saying`. */
    const settled = async (subState: string, saying: string): Promise<Task> => {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const task = await again.getTask({ tenant: '', id: parked.id });
        const status = task.metadata?.[STATUS_METADATA_KEY] as { sub_state?: string } | undefined;
        if (status?.sub_state === subState && statusText(task).includes(saying)) return task;
        if (Date.now() > deadline)
          throw new Error(`not ${subState}: ${stack?.output().slice(-3000)}`);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    };
    await settled('awaiting-approval', FATE_UNKNOWN);
    // Give a second call every chance to arrive before counting.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(notes.calls.filter((call) => call.tool === 'delete_note')).toEqual([
      { tool: 'delete_note', args: { id: 'n1' } },
    ]);

    await again.sendMessage(
      sendRequest(envelopeMessage('control', { action: 'reject', reason: 'it went' }), parked.id)
    );
    const task = await settled('awaiting-next-message', 'notes__delete_note answered');
    expect(notes.calls.filter((call) => call.tool === 'delete_note')).toHaveLength(1);
    expect(statusText(task)).toMatch(
      /^\(demo model\) notes__delete_note answered:\n\[tool\.rejected\] notes__delete_note may or may not have run/
    );
  }, 180_000);
});
