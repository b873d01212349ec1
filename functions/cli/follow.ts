/**
 * Following a task as it changes, with any A2A agent: SubscribeToTask for liveness, GetTask for
 * the truth. A subscription first replays the task's log from the start, so its events only say
 * "something changed": the view comes from GetTask (a replay changes nothing there), while a
 * status update newer than the view is shown as it comes (progress while the agent works).
 */
import type { Agent } from './connection.js';
import { isTerminal, type TaskView, taskView, withStatus } from './task-view.js';

const sameView = (a: TaskView, b: TaskView) =>
  JSON.stringify({ ...a, updated_at: null, usage: null }) ===
  JSON.stringify({ ...b, updated_at: null, usage: null });

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((done) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      done();
    });
  });

/** The task's views, the current one first, then one per change, until it ends or `signal` aborts. */
export async function* followTask(
  agent: Agent,
  taskId: string,
  signal: AbortSignal,
  options: { since?: TaskView } = {}
): AsyncGenerator<TaskView> {
  const fetchView = async () => taskView(await agent.client.getTask({ tenant: '', id: taskId }));
  let view = await fetchView();
  if (options.since === undefined || !sameView(view, options.since)) yield view;
  let failures = 0;
  while (!isTerminal(view) && !signal.aborted) {
    try {
      const stream = agent.client.resubscribeTask({ tenant: '', id: taskId }, { signal });
      for await (const event of stream) {
        const payload = event.payload;
        let next: TaskView | undefined;
        if (
          payload?.$case === 'statusUpdate' &&
          (payload.value.status?.timestamp ?? '') > (view.updated_at ?? '')
        ) {
          next = withStatus(view, payload.value);
        } else {
          next = await fetchView();
        }
        failures = 0;
        if (!sameView(next, view)) {
          view = next;
          yield view;
        } else {
          view = { ...view, updated_at: next.updated_at };
        }
        if (isTerminal(view)) return;
      }
      // The stream ended at a pause: read where the task is, then follow again.
      const next = await fetchView();
      if (!sameView(next, view)) {
        view = next;
        yield view;
      }
    } catch (error) {
      if (signal.aborted) return;
      const next = await fetchView().catch(() => view);
      if (!sameView(next, view)) {
        view = next;
        yield view;
      }
      if (isTerminal(view)) return;
      // A transient failure (or an agent without streaming): back off, then try again.
      failures++;
      if (failures > 1 || !/ended|terminal/i.test((error as Error).message ?? '')) {
        await sleep(Math.min(5_000, 250 * 2 ** Math.min(failures, 5)), signal);
      }
    }
  }
}
