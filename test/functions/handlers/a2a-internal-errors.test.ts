import { describe, expect, it } from 'vitest';
import { ALICE } from '../../support/harness.js';
import { textMessage } from '../../support/messages.js';
import { BINDINGS, setupFor } from './a2a-calls.js';

const REQUEST_INFO = 'type.googleapis.com/google.rpc.RequestInfo';

/**
 * Something breaking inside (issue 9, item 8): the client learns that it did and gets an id, and
 * nothing of what broke (no table, key or host names, no stack); the operator finds the cause
 * under that id in one error line, which `npm start`'s default level (warn) shows.
 */
describe.each(BINDINGS)('an internal error over %s', (binding) => {
  const STORE_MESSAGE = 'ConditionalCheckFailed on tiny-harness-prod TASK#t-1 at 10.0.3.7:8000';

  const failingStore = async () => {
    const setup = setupFor(binding, [{ text: 'Hi.' }]);
    const started = await setup.harness.start(textMessage('hi'), ALICE);
    setup.runtime.loop.store.get = async () => {
      throw new Error(STORE_MESSAGE);
    };
    return { setup, taskId: started.task.id };
  };

  it('answers -32603 / 500 with a correlation id and no internal detail', async () => {
    const { setup, taskId } = await failingStore();

    const outcome = await setup.calls.getTask(taskId);

    if (binding === 'JSON-RPC') expect(outcome.error?.code).toBe(-32603);
    else expect(outcome.status).toBe(500);
    const details = (binding === 'JSON-RPC' ? outcome.error?.data : outcome.error?.details) ?? [];
    const requestInfo = details.find(
      (detail) => (detail as { '@type': string })['@type'] === REQUEST_INFO
    ) as { requestId: string } | undefined;
    expect(requestInfo?.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(outcome.error?.message).toBe(
      `internal error (correlation id ${requestInfo?.requestId})`
    );
    for (const leak of [
      'ConditionalCheckFailed',
      'tiny-harness-prod',
      'TASK#',
      '10.0.3.7',
      'at ',
    ]) {
      expect(outcome.raw).not.toContain(leak);
    }
  });

  it('logs the cause at error level under the id the client got', async () => {
    const { setup, taskId } = await failingStore();

    const outcome = await setup.calls.getTask(taskId);

    const details = (binding === 'JSON-RPC' ? outcome.error?.data : outcome.error?.details) ?? [];
    const { requestId } = details.at(-1) as { requestId: string };
    const errors = setup.logs().filter((line) => line.level === 'error');
    expect(errors).toEqual([
      expect.objectContaining({
        message: 'a2a request failed',
        operation: 'GetTask',
        correlationId: requestId,
        errorMessage: STORE_MESSAGE,
        stack: expect.stringContaining(STORE_MESSAGE),
      }),
    ]);
  });

  it('logs nothing at error level for an error the client caused', async () => {
    const setup = setupFor(binding);
    await setup.calls.getTask('no-such-task');
    expect(setup.logs().filter((line) => line.level === 'error')).toEqual([]);
  });
});
