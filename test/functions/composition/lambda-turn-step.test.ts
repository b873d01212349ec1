import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startNotesOverHttp, TOKEN } from '../../support/mcp-notes-http.js';

/**
 * The turn-step Lambda's composition root: the MCP servers are connected once, by the first step
 * that offers or runs tools; a park, a renewal or a failure never waits on them.
 */
describe('the turn-step Lambda connects its MCP servers for the tool steps only', () => {
  let notes: Awaited<ReturnType<typeof startNotesOverHttp>>;
  beforeAll(async () => {
    notes = await startNotesOverHttp();
    vi.stubEnv('TINY_HARNESS_TABLE', 't');
    vi.stubEnv(
      'TINY_HARNESS_STATE_MACHINE_ARN',
      'arn:aws:states:us-east-1:000000000000:stateMachine:t'
    );
    vi.stubEnv('TINY_HARNESS_LOG_LEVEL', 'error');
    vi.stubEnv('NOTES_TOKEN', TOKEN);
    vi.stubEnv(
      'TINY_HARNESS_MCP_SERVERS',
      JSON.stringify({
        notes: {
          url: notes.url,
          auth: { type: 'bearer', token: { env: 'NOTES_TOKEN' } },
          tools: ['get_note'],
        },
      })
    );
    vi.resetModules();
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await notes.close();
  });

  it('builds park, renew and fail steps without them, and connects once for turn and execute_tool', async () => {
    const { lambdaRuntime } = await import('../../../functions/composition/lambda/turn-step.js');
    for (const op of ['park', 'renew', 'fail']) {
      const runtime = lambdaRuntime(op);
      expect(runtime, op).not.toBeInstanceOf(Promise);
      expect((await runtime).loop.runner, op).toBeUndefined();
    }
    expect(notes.initializations()).toBe(0);

    const turn = await lambdaRuntime('turn');
    expect(turn.loop.tools.definitions().map((tool) => tool.name)).toContain('notes__get_note');
    const tool = await lambdaRuntime('execute_tool');
    expect(tool).toBe(turn);
    expect(notes.initializations()).toBe(1);
    await (turn.loop.runner as unknown as { close(): Promise<void> }).close();
  });
});
