import { type Message, type Task, TaskState } from '@a2a-js/sdk';
import type { Runtime } from '../composition/runtime.js';
import { TaskClosedError } from '../core/errors.js';
import { cancelTask } from '../core/intake/control.js';
import { receiveMessage } from '../core/intake/receive-message.js';
import { startTask } from '../core/intake/start-task.js';
import type { Wake } from '../core/intake/wake.js';
import type { TaskRecord } from '../core/ports/task-store.js';
import { isTerminalState, readExtension, stateOf } from '../core/task/a2a-task.js';
import { A2aError } from './a2a-errors.js';

const INTERRUPTED: ReadonlySet<TaskState> = new Set([
  TaskState.TASK_STATE_INPUT_REQUIRED,
  TaskState.TASK_STATE_AUTH_REQUIRED,
]);

export interface ServiceOptions {
  /** How long a blocking SendMessage waits for the task to settle before answering with it as is. */
  blockingTimeoutMs: number;
  pollIntervalMs: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Access is the participants' alone: to anyone else a task is exactly as missing. */
const visibleTo = (record: TaskRecord | undefined, participantId: string): TaskRecord => {
  if (record === undefined) throw new A2aError('TaskNotFound', 'task not found');
  const participants = readExtension(record.task).participants;
  if (!participants.some((participant) => participant.id === participantId)) {
    throw new A2aError('TaskNotFound', 'task not found');
  }
  return record;
};

/**
 * Settled: ended, or interrupted and parked after the message was read (no turn is in flight for
 * it, and the execution waits on its token). A blocking SendMessage waits for this (A2A §3.2.2).
 */
const settled = (record: TaskRecord, inboxSeq: number): boolean => {
  const state = stateOf(record.task);
  if (isTerminalState(state)) return true;
  return (
    INTERRUPTED.has(state) && record.loop.inboxCursor >= inboxSeq && record.loop.parkToken !== null
  );
};

/**
 * The A2A operations over the core and the turn executions. Handlers parse requests and map the
 * results; this decides which execution to start, resume or stop.
 */
export class A2aService {
  readonly #runtime: Runtime;
  readonly #options: ServiceOptions;

  constructor(runtime: Runtime, options: ServiceOptions) {
    this.#runtime = runtime;
    this.#options = options;
  }

  async #follow(wake: Wake): Promise<void> {
    const { executions } = this.#runtime;
    if (wake.action === 'resume') await executions.resume(wake.token);
    if (wake.action === 'cut') {
      await executions.stop(wake.taskId, wake.generation - 1, 'the turn was cut');
      await executions.start({ taskId: wake.taskId, generation: wake.generation, turn: 0 });
    }
    if (wake.action === 'stop') await executions.stop(wake.taskId, wake.generation, 'canceled');
    if (wake.action === 'ended') {
      for (const ended of wake.executions) {
        // A parked execution resumes and ends itself on the terminal state; a running one is stopped.
        if (ended.token !== null) await executions.resume(ended.token);
        else await executions.stop(ended.taskId, ended.generation, 'canceled');
      }
    }
  }

  async sendMessage(options: {
    message: Message;
    sender: string;
    blocking: boolean;
  }): Promise<Task> {
    const { loop, executions } = this.#runtime;
    const { message, sender } = options;
    let taskId = message.taskId;
    let inboxSeq = 0;
    if (taskId === '') {
      const record = await startTask(loop, { message, sender });
      taskId = record.task.id;
      inboxSeq = (await loop.store.readInbox(taskId, 0)).at(-1)?.seq ?? 0;
      await executions.start({ taskId, generation: 1, turn: 0 });
    } else {
      const record = visibleTo(await loop.store.get(taskId), sender);
      if (message.contextId !== '' && message.contextId !== record.task.contextId) {
        throw new A2aError('InvalidParams', 'the contextId does not match the task');
      }
      const receipt = await receiveMessage(loop, { taskId, message, sender });
      if (!receipt.accepted) throw new A2aError('TaskNotFound', 'task not found');
      await this.#follow(receipt.wake);
      inboxSeq = receipt.seq;
    }
    return options.blocking ? this.#waitUntilSettled(taskId, inboxSeq) : this.#task(taskId);
  }

  async getTask(taskId: string, participantId: string): Promise<Task> {
    return visibleTo(await this.#runtime.loop.store.get(taskId), participantId).task;
  }

  async cancelTask(taskId: string, participantId: string): Promise<Task> {
    visibleTo(await this.#runtime.loop.store.get(taskId), participantId);
    await this.#cancel(taskId, participantId);
    return this.#task(taskId);
  }

  async #cancel(taskId: string, requestedBy: string | null): Promise<void> {
    let outcome: Awaited<ReturnType<typeof cancelTask>>;
    try {
      outcome = await cancelTask(this.#runtime.loop, { taskId, requestedBy });
    } catch (error) {
      if (error instanceof TaskClosedError)
        throw new A2aError('TaskNotCancelable', 'the task has ended');
      throw error;
    }
    await this.#follow({ action: 'ended', executions: outcome.canceled });
  }

  async #task(taskId: string): Promise<Task> {
    const record = await this.#runtime.loop.store.get(taskId);
    if (record === undefined) throw new A2aError('TaskNotFound', 'task not found');
    return record.task;
  }

  async #waitUntilSettled(taskId: string, inboxSeq: number): Promise<Task> {
    const deadline = Date.now() + this.#options.blockingTimeoutMs;
    for (;;) {
      const record = await this.#runtime.loop.store.get(taskId);
      if (record === undefined) throw new A2aError('TaskNotFound', 'task not found');
      if (settled(record, inboxSeq) || Date.now() >= deadline) return record.task;
      await sleep(this.#options.pollIntervalMs);
    }
  }
}
