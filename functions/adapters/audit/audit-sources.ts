import type { ExecutionHistoryArchive, LiveExecutionHistory } from '../../core/audit/archive.js';
import { messageIdOfIntakeKey } from '../../core/audit/intake-key.js';
import type { AuditSources, ExecutionHistoryRead } from '../../core/audit/sources.js';
import type { EventLog, LoggedEvent } from '../../core/ports/event-log.js';
import type { TaskStore } from '../../core/ports/task-store.js';
import { executionName } from '../stepfunctions/turn-executions.js';

const LOG_PAGE = 500;

export interface StoreAuditSourcesOptions {
  store: TaskStore;
  events: EventLog;
  records: { all(taskId: string): Promise<Map<string, unknown>> };
  live: LiveExecutionHistory;
  archive: ExecutionHistoryArchive;
}

/** The audit read model over the store, the event log, the records and the histories. */
export class StoreAuditSources implements AuditSources {
  readonly #options: StoreAuditSourcesOptions;

  constructor(options: StoreAuditSourcesOptions) {
    this.#options = options;
  }

  task(taskId: string) {
    return this.#options.store.get(taskId);
  }

  async log(taskId: string): Promise<LoggedEvent[]> {
    const all: LoggedEvent[] = [];
    for (;;) {
      const page = await this.#options.events.read(taskId, all.at(-1)?.seq ?? 0, LOG_PAGE);
      all.push(...page);
      if (page.length < LOG_PAGE) return all;
    }
  }

  records(taskId: string) {
    return this.#options.records.all(taskId);
  }

  /** What intake kept of each accepted message's text (its audit row; whole in the transcript). */
  async messageTexts(taskId: string): Promise<Map<string, string>> {
    const records = await this.records(taskId);
    return new Map(
      [...records].flatMap(([key, value]) => {
        const text = (value as { text?: unknown }).text;
        const messageId = messageIdOfIntakeKey(key);
        return messageId !== undefined && typeof text === 'string'
          ? [[messageId, text] as [string, string]]
          : [];
      })
    );
  }

  /** The archived copy when there is one (it is complete and outlives the service's), else live. */
  async executionHistory(
    taskId: string,
    generation: number
  ): Promise<ExecutionHistoryRead | undefined> {
    const name = executionName(taskId, generation);
    const archived = await this.#options.archive.read(taskId, generation);
    if (archived !== undefined) return { name, events: archived.events, from: 'archive' };
    const live = await this.#options.live.read(taskId, generation);
    return live === undefined ? undefined : { name, events: live.events, from: 'live' };
  }
}
