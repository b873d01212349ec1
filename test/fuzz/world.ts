import type { FuzzRequest } from './requests.js';
import type { FuzzTarget } from './target.js';

/**
 * What exists before the fuzzer starts, so its requests reach past "task not found": tasks of the
 * caller's that are open, one that has ended, one of someone else's, a context and a push config.
 */
export interface FuzzWorld {
  /** The caller's open tasks, which the fuzzer's requests never end. */
  openTasks: readonly string[];
  /** More of the caller's open tasks, for the requests that end one (CancelTask). */
  cancelable: readonly string[];
  /** A task of the caller's that has ended (canceled). */
  endedTask: string;
  /** A task the caller is not a participant of, when the target has a second caller. */
  othersTask: string | undefined;
  contextId: string;
  /** A push config of the caller's, on `openTasks[0]`. */
  configId: string;
  /** Whether the target serves the audit extension's timeline (`GET /tasks/{id}:timeline`). */
  servesAudit: boolean;
}

const call = (method: string, params: Record<string, unknown>): FuzzRequest => ({
  binding: 'JSON-RPC',
  operation: method,
  mutation: 'setup',
  method: 'POST',
  path: '/',
  query: null,
  multiQuery: null,
  headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
});

const resultOf = async (
  target: FuzzTarget,
  request: FuzzRequest,
  as: 'caller' | 'other' = 'caller'
): Promise<Record<string, unknown>> => {
  const answer = await target.send(request, as);
  const body = JSON.parse(answer.body) as { result?: Record<string, unknown>; error?: unknown };
  if (body.result === undefined) {
    throw new Error(`setting up the fuzzer's world: ${request.operation} answered ${answer.body}`);
  }
  return body.result;
};

const newTask = async (target: FuzzTarget, text: string, as: 'caller' | 'other' = 'caller') => {
  const message = {
    messageId: `fuzz-setup-${crypto.randomUUID()}`,
    role: 'ROLE_USER',
    parts: [{ text }],
  };
  const result = await resultOf(
    target,
    call('SendMessage', { message, configuration: { returnImmediately: true } }),
    as
  );
  return result.task as { id: string; contextId: string };
};

/** Creates the world through the target's own A2A surface, as any client would. */
export const setupWorld = async (target: FuzzTarget): Promise<FuzzWorld> => {
  const open = [];
  for (let index = 0; index < 8; index++) open.push(await newTask(target, `open task ${index}`));
  const ended = await newTask(target, 'a task to cancel');
  await resultOf(target, call('CancelTask', { id: ended.id }));
  const others =
    target.callers.other === undefined ? undefined : await newTask(target, 'not yours', 'other');
  const first = open[0] as { id: string; contextId: string };
  await resultOf(
    target,
    call('CreateTaskPushNotificationConfig', {
      taskId: first.id,
      id: 'hook-1',
      url: 'https://hooks.example.com/a2a',
    })
  );
  return {
    openTasks: open.slice(0, 4).map((task) => task.id),
    cancelable: open.slice(4).map((task) => task.id),
    endedTask: ended.id,
    othersTask: others?.id,
    contextId: first.contextId,
    configId: 'hook-1',
    servesAudit: target.servesAudit,
  };
};
