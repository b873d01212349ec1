import { TASK_METADATA_KEY } from '../../core/a2a/identifiers.js';
import { followTask } from '../../view/follow.js';
import type { ForkRequest } from '../../view/fork.js';
import type { TaskView } from '../../view/task-view.js';
import type { Agent } from '../connection.js';
import { pointText, resolvePoint } from '../history-point.js';
import type { Output } from '../output.js';
import { renderFrame } from '../render.js';
import { taskView } from '../task-view.js';

/** Where the agent says a fork came from (its extension's `forked_from`), when it says. */
export const forkedFromOf = (
  metadata: Record<string, unknown> | undefined
): { task_id: string; message_id: string | null } | undefined => {
  const origin = (metadata?.[TASK_METADATA_KEY] as { forked_from?: unknown } | undefined)
    ?.forked_from as { task_id?: unknown; message_id?: unknown } | undefined;
  if (typeof origin?.task_id !== 'string') return undefined;
  return {
    task_id: origin.task_id,
    message_id: typeof origin.message_id === 'string' ? origin.message_id : null,
  };
};

/**
 * What was forked from where: the point as asked, and what the agent says the fork kept (the
 * last message of its history, `forked_from.message_id`) when that is not the point itself.
 */
export const forkedLine = (
  forkId: string,
  request: Pick<ForkRequest, 'taskId' | 'point'>,
  metadata: Record<string, unknown> | undefined
): string => {
  const origin = forkedFromOf(metadata);
  const { point } = request;
  const kept =
    origin === undefined || ('messageId' in point && point.messageId === origin.message_id)
      ? ''
      : origin.message_id === null
        ? ': none of its history'
        : `: its history through message ${origin.message_id}`;
  return `task ${forkId} forked from ${origin?.task_id ?? request.taskId} ${pointText(point)}${kept}`;
};

const settled = (view: TaskView) =>
  view.state !== 'TASK_STATE_SUBMITTED' && view.state !== 'TASK_STATE_WORKING';

/** The fork once it stops working, as `send` prints a task once it settles. */
const onceSettled = async (agent: Agent, view: TaskView): Promise<TaskView> => {
  const controller = new AbortController();
  let last = view;
  try {
    for await (const next of followTask(agent, view.id, controller.signal)) {
      last = next;
      if (settled(next)) break;
    }
  } finally {
    controller.abort();
  }
  return last;
};

/**
 * `tiny-harness fork ID`: a new task with the task's history up to a point, the original left as
 * it is. Prints the fork once it settles (with `--message`, once the turn on it is done).
 */
export const forkTask = async (
  agent: Agent,
  output: Output,
  request: ForkRequest,
  options: { json: boolean }
): Promise<void> => {
  const point = await resolvePoint(agent, request.taskId, request.point);
  const task = await agent.fork({ ...request, point });
  let view = taskView(task);
  // A fork starts submitted: given a message, it settles after its turn on it; else once it parks.
  if (!settled(view)) view = await onceSettled(agent, view);
  if (options.json) {
    output.json(view);
    return;
  }
  const { c } = output;
  output.line(forkedLine(view.id, { taskId: request.taskId, point }, task.metadata));
  output.line(renderFrame(view, c));
  output.line(c.dim(`\`npx tiny-harness chat --task ${view.id}\` talks to it`));
};
