import { type ListTasksRequest, type Task, TaskState, taskStateToJSON } from '@a2a-js/sdk';
import * as z from 'zod';
import { parseUtcTimestamp } from '../core/a2a/timestamp.js';
import type { TaskRecord } from '../core/ports/task-store.js';
import { A2aError } from './a2a-errors.js';

/** ListTasks page sizes (A2A §3.1.4): at most 100, 50 when the request names none. */
export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;

/** A position in the listing order: the last task of a page. */
const CursorSchema = z.strictObject({ t: z.number().nullable(), i: z.string() });
type Cursor = z.infer<typeof CursorSchema>;

/** The status timestamp in ms, or null for a task without one (listed after all that have one). */
const timeOf = (task: Task): number | null => {
  const parsed = Date.parse(task.status?.timestamp ?? '');
  return Number.isNaN(parsed) ? null : parsed;
};

const cursorOf = (task: Task): Cursor => ({ t: timeOf(task), i: task.id });

/** The listing order: status timestamp descending (§3.1.4), then task id, so it is total. */
const compare = (a: Cursor, b: Cursor): number => {
  if (a.t !== b.t) {
    if (a.t === null) return 1;
    if (b.t === null) return -1;
    return b.t - a.t;
  }
  return a.i < b.i ? -1 : a.i > b.i ? 1 : 0;
};

/**
 * Page tokens are opaque to clients: the last listed task's place in the order, base64url JSON.
 * A keyset, not an offset, so tasks created between two pages shift nothing already listed. A
 * task whose status changes between pages moves in the order and may be seen twice or not at all.
 */
const encodeToken = (cursor: Cursor): string =>
  Buffer.from(JSON.stringify(cursor), 'utf8').toString('base64url');

const decodeToken = (token: string): Cursor => {
  try {
    return CursorSchema.parse(JSON.parse(Buffer.from(token, 'base64url').toString('utf8')));
  } catch {
    throw new A2aError('InvalidParams', 'pageToken is not a token this server issued');
  }
};

/** The request's filters and page, validated. */
export interface ListingQuery {
  pageSize: number;
  after: Cursor | undefined;
  status: TaskState | undefined;
  /** Only tasks whose status timestamp is at or after this instant (ms). */
  since: number | undefined;
}

export const listingQuery = (request: ListTasksRequest): ListingQuery => {
  const pageSize = request.pageSize ?? DEFAULT_PAGE_SIZE;
  if (!Number.isSafeInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
    throw new A2aError('InvalidParams', `pageSize must be an integer from 1 to ${MAX_PAGE_SIZE}`);
  }
  if (taskStateToJSON(request.status) === 'UNRECOGNIZED') {
    throw new A2aError('InvalidParams', 'status is not a task state');
  }
  let since: number | undefined;
  if (request.statusTimestampAfter !== undefined && request.statusTimestampAfter !== '') {
    since = parseUtcTimestamp(request.statusTimestampAfter);
    if (since === undefined) {
      throw new A2aError(
        'InvalidParams',
        'statusTimestampAfter must be an ISO 8601 date-time in UTC such as 2026-03-07T12:00:00Z'
      );
    }
  }
  return {
    pageSize,
    after: request.pageToken === '' ? undefined : decodeToken(request.pageToken),
    // TASK_STATE_UNSPECIFIED (the proto default) is no filter.
    status: request.status === TaskState.TASK_STATE_UNSPECIFIED ? undefined : request.status,
    since,
  };
};

export interface TaskPage {
  tasks: Task[];
  /** "" on the last page (§3.1.4: always present). */
  nextPageToken: string;
  /** Matching tasks across all pages. */
  totalSize: number;
}

/** One page of the records that match the query, in the listing order. */
export const pageOfTasks = (records: readonly TaskRecord[], query: ListingQuery): TaskPage => {
  const matching = records
    .map((record) => record.task)
    .filter(
      (task) =>
        (query.status === undefined || task.status?.state === query.status) &&
        (query.since === undefined || (timeOf(task) ?? Number.NEGATIVE_INFINITY) >= query.since)
    )
    .sort((a, b) => compare(cursorOf(a), cursorOf(b)));
  const after = query.after;
  const rest =
    after === undefined ? matching : matching.filter((task) => compare(cursorOf(task), after) > 0);
  const tasks = rest.slice(0, query.pageSize);
  const last = tasks.at(-1);
  return {
    tasks,
    nextPageToken:
      rest.length > tasks.length && last !== undefined ? encodeToken(cursorOf(last)) : '',
    totalSize: matching.length,
  };
};
