import type { TaskRecord } from '../../core/ports/task-store.js';
import { readExtension } from '../../core/task/a2a-task.js';
import { spanIdOfTask, traceIdOfTree } from './ids.js';

/** Where a task sits in its delegation tree: what its spans are named by and carry. */
export interface TaskLineage {
  taskId: string;
  contextId: string;
  type: string | null;
  /** The parent on this harness, if the harness made the task for one. */
  parentId: string | null;
  rootId: string;
  traceId: string;
  spanId: string;
}

/** The most tasks whose lineage a process keeps (a lineage never changes, so none goes stale). */
const KEPT = 10_000;

/**
 * Each task's lineage, read from the store the first time a process needs it (one read per task
 * and ancestor, then none): only while tracing is on, so a deployment without it reads nothing.
 */
export class TaskLineages {
  readonly #get: (taskId: string) => Promise<TaskRecord | undefined>;
  readonly #known = new Map<string, TaskLineage>();

  constructor(get: (taskId: string) => Promise<TaskRecord | undefined>) {
    this.#get = get;
  }

  /** The lineage of a record just read or written (no read of its own, its ancestors' at most). */
  async of(record: TaskRecord): Promise<TaskLineage> {
    const known = this.#known.get(record.task.id);
    if (known !== undefined) return known;
    const parentId = record.loop.parentTaskId;
    const parent = parentId === null ? undefined : await this.byId(parentId);
    const rootId = parent?.rootId ?? record.task.id;
    const lineage: TaskLineage = {
      taskId: record.task.id,
      contextId: record.task.contextId,
      type: typeOf(record),
      parentId,
      rootId,
      traceId: traceIdOfTree(rootId),
      spanId: spanIdOfTask(record.task.id),
    };
    if (this.#known.size >= KEPT) this.#known.delete(this.#known.keys().next().value as string);
    this.#known.set(record.task.id, lineage);
    return lineage;
  }

  /** A task's lineage by id; undefined for a task this store does not hold. */
  async byId(taskId: string): Promise<TaskLineage | undefined> {
    const known = this.#known.get(taskId);
    if (known !== undefined) return known;
    const record = await this.#get(taskId);
    return record === undefined ? undefined : this.of(record);
  }
}

const typeOf = (record: TaskRecord): string | null => {
  try {
    return readExtension(record.task).type;
  } catch {
    return null;
  }
};
