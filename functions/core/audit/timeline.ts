/**
 * Merges the parts of a task tree into one timeline, in time order, and says who or what caused
 * each state change from the entries just before it: a participant's accepted message, a child's
 * change, a timeout, a hook, the agent's own turn.
 */
import { type TaskAuditInput, taskEntries } from './task-entries.js';
import type { Actor, Timeline, TimelineEntry, TimelineTask } from './timeline.schema.js';

export interface TaskPart extends TaskAuditInput {
  task: Omit<TimelineTask, 'depth' | 'task_id'>;
}

const time = (entry: TimelineEntry) => Date.parse(entry.at);

const TERMINAL = new Set([
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_REJECTED',
]);

const causeOf = (
  change: TimelineEntry,
  window: readonly TimelineEntry[],
  children: ReadonlySet<string>,
  created: Actor | null
): Actor | null => {
  const own = window.filter((entry) => entry.task_id === change.task_id);
  const last = (kind: TimelineEntry['kind'], where: (e: TimelineEntry) => boolean = () => true) =>
    own.filter((entry) => entry.kind === kind && where(entry)).at(-1);
  const details = change.details as { from: string | null; to: string; sub_state: string | null };
  const message = (change.details.message as { text?: string } | undefined)?.text ?? '';
  const accepted = last('message_accepted');
  switch (details.to) {
    case 'TASK_STATE_WORKING': {
      if (details.from === null || details.from === 'TASK_STATE_SUBMITTED') return created;
      if (accepted !== undefined) return accepted.actor;
      const child = window
        .filter((entry) => entry.kind === 'state_changed' && children.has(entry.task_id))
        .at(-1);
      if (child !== undefined) return { kind: 'child', id: child.task_id };
      if (last('wait_ended', (entry) => entry.actor?.kind === 'timeout') !== undefined)
        return { kind: 'timeout', id: null };
      return { kind: 'harness', id: null };
    }
    case 'TASK_STATE_INPUT_REQUIRED': {
      if (message.startsWith('completion refused') || details.sub_state === 'awaiting-review')
        return { kind: 'hook', id: 'task.complete' };
      const asked = last('tool_call', (entry) => entry.details.name === 'ask_participant');
      if (details.sub_state === 'awaiting-answer' && asked !== undefined) return asked.actor;
      return { kind: 'agent', id: null };
    }
    case 'TASK_STATE_COMPLETED': {
      const model = last('model_call');
      if (accepted !== undefined && (model === undefined || time(model) <= time(accepted)))
        return accepted.actor;
      return { kind: 'agent', id: null };
    }
    case 'TASK_STATE_CANCELED': {
      if (message.startsWith('parent '))
        return { kind: 'parent', id: message.split(' ')[1] ?? null };
      return accepted?.actor ?? null;
    }
    case 'TASK_STATE_FAILED':
      return { kind: 'harness', id: null };
    default:
      return null;
  }
};

/** The timeline of `rootId`'s tree from each task's part; `gaps` say what could not be read. */
export const buildTimeline = (
  rootId: string,
  parts: readonly TaskPart[],
  gaps: readonly string[],
  traceId: string | null = null
): Timeline => {
  const indexed = parts
    .flatMap((part) => taskEntries(part))
    .map((entry, index) => ({ entry, index }));
  indexed.sort((a, b) => time(a.entry) - time(b.entry) || a.index - b.index);
  const entries = indexed.map(({ entry }) => entry);

  const childrenOf = new Map<string, Set<string>>();
  for (const part of parts) {
    if (part.task.parent_id === null) continue;
    const siblings = childrenOf.get(part.task.parent_id) ?? new Set<string>();
    siblings.add(part.taskId);
    childrenOf.set(part.task.parent_id, siblings);
  }
  const lastChange = new Map<string, number>();
  const created = new Map<string, Actor | null>();
  const attributed = entries.map((entry, position) => {
    if (entry.kind === 'task_created') created.set(entry.task_id, entry.actor);
    if (entry.kind !== 'state_changed') return entry;
    const from = lastChange.get(entry.task_id) ?? 0;
    lastChange.set(entry.task_id, position);
    if (entry.actor !== null) return entry;
    const window = entries.slice(from, position);
    const actor = causeOf(
      entry,
      window,
      childrenOf.get(entry.task_id) ?? new Set(),
      created.get(entry.task_id) ?? null
    );
    return { ...entry, actor };
  });

  return {
    task_id: rootId,
    trace_id: traceId,
    tasks: parts.map((part) => ({ task_id: part.taskId, depth: part.depth, ...part.task })),
    entries: attributed,
    gaps: [...gaps],
  };
};

export const isTerminalStateName = (name: string) => TERMINAL.has(name);
