/**
 * Following a task as it changes, with any A2A agent: a stream (SubscribeToTask, or the stream of
 * a sent message) for liveness, GetTask for the truth. A stream may carry events older than the
 * task it started from (a subscription replays the log from the start; a send's stream starts
 * at the log's head before the message was taken in): a Task or status event older than the view
 * is passed over, a newer one is shown as it comes (progress while the agent works, each state
 * the task passes through). Anything else only says "something changed": the view comes from
 * GetTask, read once a burst of events has settled (a long replay costs one read, not one per
 * event).
 */
import type { StreamResponse, Task } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { messageText } from './messages.js';
import { isTerminal, type TaskView, withStatus } from './task-view.js';

/** What following needs of an agent: its client, and how the renderer reads a task. */
export interface TaskSource {
  client: Pick<Client, 'getTask' | 'resubscribeTask'>;
  view(task: Task): TaskView;
}

/** How long a burst of events must be quiet before the task is read again. */
const SETTLE_MS = 250;

/** Views that show the same thing: a change of spend alone is a change (the budget line shows it). */
export const sameView = (a: TaskView, b: TaskView) =>
  JSON.stringify({ ...a, updated_at: null }) === JSON.stringify({ ...b, updated_at: null });

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((done) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      done();
    });
  });

const QUIET = Symbol('quiet');

export const readView = async (source: TaskSource, taskId: string) =>
  source.view(await source.client.getTask({ tenant: '', id: taskId, historyLength: 0 }));

/**
 * The views a stream brings, one per change, starting from `start` (or, with none, from the
 * stream's first Task: a new task's first event). Ends with the stream, after a last read.
 */
export async function* viewsOf(
  source: TaskSource,
  stream: AsyncIterable<StreamResponse>,
  start: TaskView | undefined,
  /** A bare Message (an agent that answers without a task): its text. */
  onMessage: (text: string) => void = () => undefined
): AsyncGenerator<TaskView> {
  const events = stream[Symbol.asyncIterator]();
  let view = start;
  let next = events.next();
  let dirty = false;
  // A status update shown as it came carries the spend of the view before it: read when quiet.
  let unread = false;
  try {
    for (;;) {
      const result =
        dirty || unread
          ? await Promise.race([next, sleep(SETTLE_MS).then(() => QUIET)])
          : await next;
      let changed: TaskView | undefined;
      if (result === QUIET) {
        dirty = false;
        unread = false;
        if (view !== undefined) changed = await readView(source, view.id);
      } else if ((result as IteratorResult<StreamResponse>).done === true) {
        break;
      } else {
        next = events.next();
        const payload = (result as IteratorYieldResult<StreamResponse>).value.payload;
        if (payload?.$case === 'task') {
          // The task as it was when logged (a plan or a row changed), taken when it is not older
          // than what is shown: then no state it passed through is skipped for a later read.
          const logged = source.view(payload.value);
          if (view === undefined || (logged.updated_at ?? '') >= (view.updated_at ?? '')) {
            dirty = false;
            unread = false;
            changed = logged;
          }
        } else if (payload?.$case === 'message') {
          onMessage(messageText(payload.value));
        } else if (payload?.$case === 'statusUpdate' && view !== undefined) {
          // An update older than the view says nothing new. One that follows changes not read yet
          // is read with them, so the plan a turn made shows before the question it ends on.
          if ((payload.value.status?.timestamp ?? '') > (view.updated_at ?? '')) {
            if (dirty) {
              dirty = false;
              unread = false;
              changed = await readView(source, view.id);
            } else {
              changed = withStatus(view, payload.value);
              unread = true;
            }
          }
        } else {
          dirty = true;
        }
      }
      if (changed !== undefined && (view === undefined || !sameView(changed, view))) {
        view = changed;
        yield view;
      } else if (changed !== undefined && view !== undefined) {
        view = { ...view, updated_at: changed.updated_at ?? view.updated_at };
      }
    }
  } finally {
    // The read still waiting when the follow stops fails once its stream is closed: expected.
    next.catch(() => undefined);
  }
  if (view === undefined) return;
  const settled = await readView(source, view.id);
  if (!sameView(settled, view)) yield settled;
}

/** The task's views, the current one first, then one per change, until it ends or `signal` aborts. */
export async function* followTask(
  source: TaskSource,
  taskId: string,
  signal: AbortSignal,
  options: { since?: TaskView } = {}
): AsyncGenerator<TaskView> {
  const view = await readView(source, taskId);
  if (options.since === undefined || !sameView(view, options.since)) yield view;
  // A follow that ends (the task did, or the caller stopped) closes the stream it had open: an
  // open response would keep the process alive until the agent closes it.
  const following = new AbortController();
  const stop = () => following.abort();
  signal.addEventListener('abort', stop, { once: true });
  try {
    yield* followStreams(source, taskId, view, signal, following.signal);
  } finally {
    signal.removeEventListener('abort', stop);
    following.abort();
  }
}

async function* followStreams(
  source: TaskSource,
  taskId: string,
  start: TaskView,
  signal: AbortSignal,
  streamSignal: AbortSignal
): AsyncGenerator<TaskView> {
  let view = start;
  let failures = 0;
  while (!isTerminal(view) && !signal.aborted) {
    try {
      const stream = source.client.resubscribeTask(
        { tenant: '', id: taskId },
        { signal: streamSignal }
      );
      for await (const changed of viewsOf(source, stream, view)) {
        failures = 0;
        view = changed;
        yield view;
        if (isTerminal(view)) return;
      }
    } catch (error) {
      if (signal.aborted) return;
      failures++;
      // A transient failure (a throttle, a dropped connection, an agent without streaming):
      // back off, read the task, follow again.
      await sleep(Math.min(5_000, 250 * 2 ** Math.min(failures, 5)), signal);
      const settled = await readView(source, taskId).catch(() => view);
      if (!sameView(settled, view)) {
        view = settled;
        yield view;
      }
      if (failures > 8) throw error;
    }
  }
}
