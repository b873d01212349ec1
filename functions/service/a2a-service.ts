import type {
  ListTasksRequest,
  ListTasksResponse,
  Message,
  Task,
  TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import type { AuditSources } from '../core/audit/sources.js';
import { TaskClosedError } from '../core/errors.js';
import { cancelTask } from '../core/intake/control.js';
import { forkTask } from '../core/intake/fork-task.js';
import { receiveMessage } from '../core/intake/receive-message.js';
import { redactMessage, redactSecrets } from '../core/intake/redact.js';
import { startTask } from '../core/intake/start-task.js';
import { failTask } from '../core/loop/fail-task.js';
import type { HistoryPoint } from '../core/loop/history-point.js';
import type { PushConfig } from '../core/ports/push-config-store.js';
import type { TaskRecord } from '../core/ports/task-store.js';
import { isTerminalState, stateName, stateOf } from '../core/task/a2a-task.js';
import type { Participant } from '../core/task/extension.schema.js';
import { A2aError } from './a2a-errors.js';
import type { ServiceDeps } from './deps.js';
import { readTaskAtPoint } from './history-point-read.js';
import { checkAssertedParticipant } from './identity.js';
import { listingQuery, pageOfTasks } from './list-tasks.js';
import { PushConfigs } from './push-configs.js';
import { visibleRecord } from './task-access.js';
import { type HistoryLimit, historyLimit, withHistory, withHistoryOf } from './task-history.js';
import {
  DEFAULT_STREAM_TIMING,
  type FollowTask,
  followTask,
  isSettled,
  type StreamItem,
  type StreamTiming,
} from './task-stream.js';
import type { TaskWatch } from './task-watch.js';
import { withUsageTree } from './usage-tree.js';

export interface SendOptions {
  message: Message;
  sender: string;
  historyLength?: number | undefined;
  /** `configuration.taskPushNotificationConfig`: the sender's webhook for this task. */
  pushConfig?: TaskPushNotificationConfig | undefined;
}

/**
 * The history a response carries when the request sets no `historyLength` (§3.2.4 leaves it to
 * the server). GetTask and SendMessage answer with the conversation so far, as the reference
 * SDKs' clients expect of both (bounded: `withHistory` never returns more than
 * MAX_HISTORY_MESSAGES). A listing and a stream's first Task carry none unless asked for, so a
 * page of tasks or each stream never reads transcripts it was not asked for.
 */
const DEFAULT_HISTORY = {
  getTask: 'all',
  forkTask: 'all',
  sendMessage: 'all',
  listTasks: 0,
  stream: 0,
} as const satisfies Record<string, HistoryLimit>;

export interface ServiceOptions {
  /** How long a blocking SendMessage waits for the task to settle before answering with it as is. */
  blockingTimeoutMs: number;
  pollIntervalMs: number;
  /**
   * Watches a task's steps: a blocking SendMessage reads the task again as soon as one of them has
   * run (one that ran during a read included) instead of on its next poll. Absent: it polls
   * (`npm start` has one).
   */
  watchSteps?: (taskId: string) => TaskWatch;
  /**
   * Watches the writes of a task's items: a stream reads the task's log again as soon as one has
   * been written instead of on its next poll. Absent: streams poll (`npm start` has one).
   */
  watchWrites?: (taskId: string) => TaskWatch;
  /** SendStreamingMessage and SubscribeToTask. @default DEFAULT_STREAM_TIMING */
  stream?: StreamTiming;
}

/** A message accepted into a task: which task, and what settles it. */
interface Accepted {
  taskId: string;
  /** The message's inbox seq; 0 when it queued nothing (the task has no turn to take for it). */
  inboxSeq: number;
  /** The task as taking the message left it, when known (else it is read for the answer). */
  record?: TaskRecord | undefined;
}

/** A task and a point in its history, as a participant asks for it. */
export interface PointRequest {
  taskId: string;
  participantId: string;
  point: HistoryPoint;
  historyLength?: number | undefined;
}

/** ForkTask: a point, and what the fork is to be. */
export interface ForkRequest extends PointRequest {
  name?: string | undefined;
  /** The fork's first message (a turn runs on it); absent: the fork waits for one. */
  text?: string | undefined;
  participants?: readonly Participant[] | undefined;
}

/** What a look back reads of a task's history besides the transcript: its log and its records. */
export type HistorySources = Pick<AuditSources, 'log' | 'records'>;

/** Runs once the message is checked, just before the task can act on it. */
type BeforeTaskActs = (taskId: string) => Promise<void>;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The A2A operations over the core and the turn executions. Handlers parse requests and map the
 * results; this decides which execution to start, resume or stop, and who may see what. A task
 * a participant asks for (GetTask, SendMessage, CancelTask) carries its sub-task tree's usage.
 */
export class A2aService {
  readonly #runtime: ServiceDeps;
  readonly #options: ServiceOptions;
  readonly #pushConfigs: PushConfigs;

  constructor(runtime: ServiceDeps, options: ServiceOptions) {
    this.#runtime = runtime;
    this.#options = options;
    this.#pushConfigs = new PushConfigs(runtime);
  }

  get pushConfigs(): PushConfigs {
    return this.#pushConfigs;
  }

  async sendMessage(options: SendOptions & { blocking: boolean }): Promise<Task> {
    const { store } = this.#runtime.loop;
    const limit = historyLimit(options.historyLength, DEFAULT_HISTORY.sendMessage);
    const accepted = await this.#accept(options);
    const { taskId, inboxSeq } = accepted;
    const record = options.blocking
      ? await this.#waitUntilSettled(taskId, inboxSeq, accepted.record)
      : (accepted.record ?? (await this.#record(taskId)));
    return withUsageTree(
      this.#runtime,
      record,
      await withHistory(store, record.task, limit, { throughSeq: record.loop.historySeq })
    );
  }

  /**
   * SendStreamingMessage (§3.1.2): the message is accepted (or refused, with nothing streamed)
   * before the stream starts; the stream is the task as it is, then what the task logs until it
   * has answered this message and paused, or ended.
   */
  async sendStreamingMessage(options: SendOptions): Promise<AsyncIterable<StreamItem>> {
    const { store } = this.#runtime.loop;
    const limit = historyLimit(options.historyLength, DEFAULT_HISTORY.stream);
    // Where the stream starts: the log's head before the task could log anything of this message.
    let logHead = 0;
    const accepted = await this.#accept(options, async (id) => {
      logHead = await this.#runtime.loop.events.lastSeq(id);
    });
    const { taskId, inboxSeq } = accepted;
    // The task as the accepting commit left it, then what was logged after that commit (a claim
    // that folds the message logs the task WORKING): read again, the task may already show what
    // the stream then sends after it (a new task's first turn), out of order.
    const snapshot = await withHistory(
      store,
      accepted.record?.task ?? (await this.#task(taskId)),
      limit
    );
    const after = accepted.record?.eventSeq ?? logHead;
    return this.#follow(taskId, snapshot, {
      replayAfter: after,
      endAfter: after,
      end: { kind: 'settled', inboxSeq },
    });
  }

  /**
   * SubscribeToTask (§3.1.6): the task as it is, then its durable log replayed from the start (or
   * after `lastEventId`, the SSE reconnect), then what it logs until its next pause or its end.
   * A task that has ended has nothing to follow: UnsupportedOperation.
   */
  async subscribe(options: {
    taskId: string;
    participantId: string;
    lastEventId?: number | undefined;
  }): Promise<AsyncIterable<StreamItem>> {
    const { store } = this.#runtime.loop;
    const record = await visibleRecord(store, options.taskId, options.participantId);
    if (isTerminalState(stateOf(record.task))) {
      throw new A2aError('UnsupportedOperation', 'the task has ended: there is nothing to follow');
    }
    // The log's head as of the record read: a head read later could hold a terminal status the
    // snapshot does not show, which would then never end the stream.
    const logHead = record.eventSeq;
    const replayAfter = options.lastEventId ?? 0;
    if (replayAfter > logHead) {
      throw new A2aError('InvalidParams', `Last-Event-ID ${replayAfter} is past the task's log`);
    }
    const snapshot = await withHistory(store, record.task, DEFAULT_HISTORY.stream);
    return this.#follow(record.task.id, snapshot, {
      replayAfter,
      endAfter: logHead,
      end: { kind: 'next-pause' },
    });
  }

  #follow(
    taskId: string,
    snapshot: Task,
    from: Pick<FollowTask, 'replayAfter' | 'endAfter' | 'end'>
  ): AsyncIterable<StreamItem> {
    const { store, events } = this.#runtime.loop;
    const { logger } = this.#runtime;
    return followTask({
      taskId,
      snapshot,
      ...from,
      events,
      readRecord: (id) => store.get(id),
      timing: this.#options.stream ?? DEFAULT_STREAM_TIMING,
      ...(this.#options.watchWrites === undefined
        ? {}
        : { watchWrites: this.#options.watchWrites }),
      onEnd: (reason, sent) => logger.info('a2a stream ended', { taskId, reason, events: sent }),
    });
  }

  /**
   * Takes a message in: a new task for a message without a task id, else the message joins the
   * task's inbox and wakes it as the core says. The message, the task it creates or changes and
   * its inline push config are one commit: a refused or failed request stores nothing.
   */
  async #accept(options: SendOptions, beforeTaskActs?: BeforeTaskActs): Promise<Accepted> {
    const { loop } = this.#runtime;
    const { sender } = options;
    // A message may not speak for someone else (A2A §7: the server authenticates the caller).
    const asserted = checkAssertedParticipant(sender, options.message);
    if (!asserted.ok) throw asserted.error;
    // Secrets in inbound text never reach hooks, the transcript or the logs.
    const message = redactMessage(options.message, this.#runtime.secrets);
    if (message.messageId === '') throw new A2aError('InvalidParams', 'messageId is required');
    if (message.taskId === '') {
      // The id is chosen first: an inline push config is sealed for it.
      const reserved = loop.ids.next('task');
      const pushConfig = await this.#inlinePush(reserved, options, false);
      const { record, inboxSeq } = await startTask(loop, {
        message,
        sender,
        taskId: reserved,
        pushConfig,
      });
      const taskId = record.task.id;
      await beforeTaskActs?.(taskId);
      await this.#startFirstExecution(taskId);
      return { taskId, inboxSeq, record };
    }
    const taskId = message.taskId;
    const record = await visibleRecord(loop.store, taskId, sender);
    // §3.4: a contextId that is not the task's is refused, never silently replaced.
    if (message.contextId !== '' && message.contextId !== record.task.contextId) {
      throw new A2aError('InvalidParams', 'the contextId does not match the task');
    }
    // §3.1.1: a task in a terminal state takes no more messages.
    if (isTerminalState(stateOf(record.task))) {
      throw new A2aError('UnsupportedOperation', 'the task is in a terminal state');
    }
    const pushConfig = await this.#inlinePush(taskId, options, true);
    await beforeTaskActs?.(taskId);
    const receipt = await receiveMessage(loop, { taskId, message, sender, pushConfig, record });
    if (!receipt.accepted) throw new A2aError('TaskNotFound', 'task not found');
    return { taskId, inboxSeq: receipt.seq, record: receipt.record };
  }

  /**
   * Starts a new task's first execution. If it cannot be started, the task (whose id the caller
   * never learns: the request fails) is failed with a reason, rather than left waiting for ever.
   */
  async #startFirstExecution(taskId: string): Promise<void> {
    const { loop, executions, logger } = this.#runtime;
    const ref = { taskId, generation: 1, turn: 0 };
    try {
      await executions.start(ref);
    } catch (error) {
      logger.error('a new task could not start', {
        taskId,
        errorName: (error as Error).name,
        errorMessage: (error as Error).message,
      });
      await failTask(loop, ref, 'the task could not be started').catch(() => undefined);
      throw error;
    }
  }

  async getTask(options: {
    taskId: string;
    participantId: string;
    historyLength?: number | undefined;
  }): Promise<Task> {
    const limit = historyLimit(options.historyLength, DEFAULT_HISTORY.getTask);
    const { store } = this.#runtime.loop;
    const record = await visibleRecord(store, options.taskId, options.participantId);
    return withUsageTree(this.#runtime, record, await withHistory(store, record.task, limit));
  }

  /**
   * ForkTask (the task extension): a new task from a point in the history of one the caller is on
   * (watchers included: a fork needs only what they may read), started like a new task: with a
   * first message it takes a turn on it, without one it waits for the caller's next. To anyone
   * not on the original it is "not found", as a missing task.
   */
  async forkTask(request: ForkRequest, sources: HistorySources): Promise<Task> {
    const { loop, secrets } = this.#runtime;
    const limit = historyLimit(request.historyLength, DEFAULT_HISTORY.forkTask);
    const record = await visibleRecord(loop.store, request.taskId, request.participantId);
    const read = await readTaskAtPoint(loop.store, sources, record, request.point);
    const text = request.text === undefined ? undefined : redactSecrets(request.text, secrets);
    const { record: fork } = await forkTask(loop, {
      original: record,
      ...read,
      caller: request.participantId,
      name: request.name,
      participants: request.participants,
      message: text === undefined ? undefined : { messageId: loop.ids.next('msg'), text },
    });
    await this.#startFirstExecution(fork.task.id);
    // The fork's history is what it was given: no need to read it back.
    return withUsageTree(this.#runtime, fork, withHistoryOf(fork.task, read.entries, limit));
  }

  /**
   * GetTaskAt (the task extension): the task as it was at a point of its history (its state,
   * plan, criteria and artifacts then, its history through the point), for its participants.
   */
  async taskAt(request: PointRequest, sources: HistorySources): Promise<Task> {
    const { store } = this.#runtime.loop;
    const limit = historyLimit(request.historyLength, DEFAULT_HISTORY.getTask);
    const record = await visibleRecord(store, request.taskId, request.participantId);
    const read = await readTaskAtPoint(store, sources, record, request.point);
    return withHistoryOf(read.asItWas, read.entries, limit);
  }

  /**
   * The caller's tasks (§3.1.4, scoped to the caller as §13.1 requires): only tasks the caller
   * is a participant of, filtered, newest status first, one page at a time.
   */
  async listTasks(request: ListTasksRequest, participantId: string): Promise<ListTasksResponse> {
    const query = listingQuery(request);
    const limit = historyLimit(request.historyLength, DEFAULT_HISTORY.listTasks);
    const { store } = this.#runtime.loop;
    const records = await store.list({
      participantId,
      contextId: request.contextId === '' ? undefined : request.contextId,
    });
    const page = pageOfTasks(records, query);
    const tasks = await Promise.all(
      page.tasks.map(async (task) => {
        const listed = await withHistory(store, task, limit);
        // includeArtifacts defaults to false: the artifacts field is then left out.
        return request.includeArtifacts === true ? listed : { ...listed, artifacts: [] };
      })
    );
    return {
      tasks,
      nextPageToken: page.nextPageToken,
      pageSize: query.pageSize,
      totalSize: page.totalSize,
    };
  }

  /**
   * CancelTask (§3.1.5): a task that has ended, canceled included, is not cancelable (the error
   * table lists an already-canceled task under TaskNotCancelableError).
   */
  async cancelTask(taskId: string, participantId: string): Promise<Task> {
    const record = await visibleRecord(this.#runtime.loop.store, taskId, participantId);
    if (isTerminalState(stateOf(record.task))) {
      throw new A2aError(
        'TaskNotCancelable',
        `the task has ended (${stateName(stateOf(record.task))})`
      );
    }
    try {
      await cancelTask(this.#runtime.loop, { taskId, requestedBy: participantId });
    } catch (error) {
      if (error instanceof TaskClosedError)
        throw new A2aError('TaskNotCancelable', 'the task has ended');
      throw error;
    }
    const canceled = await this.#record(taskId);
    return withUsageTree(this.#runtime, canceled, canceled.task);
  }

  /**
   * The sender's inline push config for the task, checked and sealed, to be committed with the
   * message; `existing`: the task's stored configs are checked too (limits, ids taken).
   */
  async #inlinePush(
    taskId: string,
    options: SendOptions,
    existing: boolean
  ): Promise<PushConfig | undefined> {
    if (options.pushConfig === undefined) return undefined;
    const prepared = await this.#pushConfigs.prepare(taskId, options.pushConfig, options.sender);
    return existing ? this.#pushConfigs.admit(prepared) : prepared.stored;
  }

  async #record(taskId: string): Promise<TaskRecord> {
    const record = await this.#runtime.loop.store.get(taskId);
    if (record === undefined) throw new A2aError('TaskNotFound', 'task not found');
    return record;
  }

  async #task(taskId: string): Promise<Task> {
    return (await this.#record(taskId)).task;
  }

  /**
   * Polls the task until it has read message `inboxSeq` and paused, or ended. `accepted`: the task
   * as taking the message left it, which the first poll would read again (a turn takes longer).
   */
  async #waitUntilSettled(
    taskId: string,
    inboxSeq: number,
    accepted: TaskRecord | undefined
  ): Promise<TaskRecord> {
    const deadline = Date.now() + this.#options.blockingTimeoutMs;
    const { pollIntervalMs, watchSteps } = this.#options;
    const steps = watchSteps?.(taskId);
    const pause = () => (steps === undefined ? sleep(pollIntervalMs) : steps.next(pollIntervalMs));
    try {
      if (accepted !== undefined) {
        if (isSettled(accepted, inboxSeq)) return accepted;
        await pause();
      }
      for (;;) {
        const record = await this.#record(taskId);
        if (isSettled(record, inboxSeq) || Date.now() >= deadline) return record;
        await pause();
      }
    } finally {
      steps?.close();
    }
  }
}
