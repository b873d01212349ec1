import type { Message } from '@a2a-js/sdk';
import * as z from 'zod';
import { EVENT_MEDIA_TYPE } from '../a2a/identifiers.js';
import { Hooks } from '../hooks/hooks.js';
import { childChangeFromRecords } from '../intake/child-change-from-records.js';
import { type ChildChange, recordChildChange } from '../intake/child-changed.js';
import { cancelTask, requestCompletion } from '../intake/control.js';
import { type ForkTaskInput, forkTask } from '../intake/fork-task.js';
import { type Receipt, receiveMessage } from '../intake/receive-message.js';
import { startTask } from '../intake/start-task.js';
import { DEFAULT_LOOP_CONFIG, type LoopConfig } from '../loop/config.js';
import type { LoopDeps } from '../loop/deps.js';
import { type HistoryPoint, taskAtHistoryPoint } from '../loop/history-point.js';
import type { HarnessHookPoints } from '../loop/hook-points.js';
import type { InheritedSettings, RegisteredAgent } from '../ports/agent-directory.js';
import type { Model } from '../ports/model.js';
import type { TaskRecord } from '../ports/task-store.js';
import type { ToolRunner } from '../ports/tool-runner.js';
import type { Wake } from '../ports/waker.js';
import { stateOf, subStateOf } from '../task/a2a-task.js';
import { findEnvelope, type ServerRelations } from '../task/envelope.js';
import { ParticipantSchema } from '../task/extension.schema.js';
import { ToolRegistry } from '../tools/registry.js';
import { type RunOutcome, runTask } from './driver.js';
import { FixedClock } from './fixed-clock.js';
import { InMemoryAgentDirectory } from './in-memory-agent-directory.js';
import { InMemoryEventLog } from './in-memory-event-log.js';
import { InMemoryPushConfigStore } from './in-memory-push-config-store.js';
import { InMemoryTaskStore } from './in-memory-task-store.js';
import { ObservedTaskStore } from './observed-task-store.js';
import { ScriptedModel } from './scripted-model.js';
import { SequentialIds } from './sequential-ids.js';

export interface InProcessHarnessOptions {
  model?: Model;
  config?: Partial<LoopConfig>;
  remoteAgents?: readonly RegisteredAgent[];
  runner?: ToolRunner;
  /** Whether the store's records say their inbox (`InMemoryTaskStore`'s option; yes by default). */
  inboxOnRecord?: boolean;
}

/**
 * The whole harness in one process, on in-memory ports: the core's operations driven by the
 * in-process driver, and the stream handler's part (a child's state change reaching its parent)
 * played by a store listener. What the state machine and DynamoDB stream do in the cloud, this
 * does with plain loops, so scenario tests exercise the same core end to end.
 */
/**
 * A test's first message may name a whole cast (a reporter, an admin, a human assignee), which a
 * client may not: the harness starts such a task on the server's own path, as the harness would
 * create it, with the participants as relations the server made and the rest of the envelope as
 * the brief. The sender joins as reporter and the agent as assignee when the cast leaves them
 * out, as a client's task would have them.
 */
export const castOf = (
  message: Message,
  sender: string,
  agentId: string
): { message: Message; relations?: ServerRelations } => {
  const envelope = findEnvelope(message);
  const named = envelope?.kind === 'task' ? envelope.payload.participants : undefined;
  if (envelope === undefined || !Array.isArray(named)) return { message };
  const participants = z.array(ParticipantSchema).parse(named);
  if (!participants.some(({ id }) => id === sender)) {
    participants.unshift({ id: sender, kind: 'human', role: 'reporter', display_name: '' });
  }
  if (!participants.some(({ role }) => role === 'assignee')) {
    participants.push({ id: agentId, kind: 'agent', role: 'assignee', display_name: '' });
  }
  const { participants: _cast, ...payload } = envelope.payload;
  return {
    message: {
      ...message,
      parts: message.parts.map((part) =>
        part.content?.$case === 'data' && part.mediaType === EVENT_MEDIA_TYPE
          ? { ...part, content: { $case: 'data', value: { ...envelope, payload } } }
          : part
      ),
    },
    relations: { parentTaskId: null, participants },
  };
};

export class InProcessHarness {
  readonly deps: LoopDeps;
  readonly store: ObservedTaskStore;
  /** The store under the observer: the records a fork reads whole, as the audit read model does. */
  readonly stored: InMemoryTaskStore;
  readonly events: InMemoryEventLog;
  readonly pushConfigs: InMemoryPushConfigStore;
  readonly agents: InMemoryAgentDirectory;
  readonly hooks = new Hooks<HarnessHookPoints>();
  /** Every run's outcome, in order: what the state machine's executions would have ended with. */
  readonly outcomes: Array<{ taskId: string; outcome: RunOutcome }> = [];
  readonly #runnable: string[] = [];
  readonly #changes: ChildChange[] = [];

  constructor(options: InProcessHarnessOptions = {}) {
    const stored = new InMemoryTaskStore({ inboxOnRecord: options.inboxOnRecord ?? true });
    this.stored = stored;
    this.store = new ObservedTaskStore(stored);
    this.events = new InMemoryEventLog(stored);
    this.pushConfigs = new InMemoryPushConfigStore(stored);
    this.agents = new InMemoryAgentDirectory(options.remoteAgents ?? []);
    const config = { ...DEFAULT_LOOP_CONFIG, ...options.config };
    this.deps = {
      store: this.store,
      events: this.events,
      model: options.model ?? new ScriptedModel(),
      tools: new ToolRegistry(options.runner?.tools() ?? []),
      runner: options.runner,
      agents: this.agents,
      clock: new FixedClock(),
      ids: new SequentialIds(),
      hooks: this.hooks,
      config,
      // A wake queues its task: like the real runtime, it never runs inside the turn that caused it.
      waker: { follow: async (wake) => this.#follow(wake) },
    };
    this.agents.bindSelf(async (request) => {
      const sender = request.message.metadata?.participant_id;
      const { record } = await startTask(this.deps, {
        message: request.message,
        sender: typeof sender === 'string' ? sender : config.agentId,
        settings: request.inherited,
        relations: { parentTaskId: request.parentTaskId, participants: request.participants },
      });
      this.#runnable.push(record.task.id);
      return {
        taskId: record.task.id,
        state: stateOf(record.task),
        subState: subStateOf(record.task),
      };
    });
    this.store.onChange((before, after) => {
      const change = childChangeFromRecords(before, after, config.agentId);
      if (change !== undefined) this.#changes.push(change);
    });
  }

  /**
   * A client's first message: creates the task and starts its execution. `settings` is the
   * server's own path (a deployment's per-task model), never a client's.
   */
  async start(message: Message, sender: string, settings?: InheritedSettings): Promise<TaskRecord> {
    const { record } = await startTask(this.deps, {
      ...castOf(message, sender, this.deps.config.agentId),
      sender,
      settings,
    });
    this.#runnable.push(record.task.id);
    await this.settle();
    return this.task(record.task.id);
  }

  /** A client's message to an existing task. */
  async send(taskId: string, message: Message, sender: string): Promise<Receipt> {
    const receipt = await receiveMessage(this.deps, { taskId, message, sender });
    await this.settle();
    return receipt;
  }

  /**
   * A fork, as the service makes one: the original read at the point (its transcript, records and
   * log), one creation, then the fork's first run.
   */
  async fork(
    taskId: string,
    caller: string,
    point: HistoryPoint,
    options: Pick<ForkTaskInput, 'name' | 'participants' | 'message'> = {}
  ): Promise<TaskRecord> {
    const original = await this.task(taskId);
    const audit = this.stored.existingPartition(taskId)?.audit ?? new Map<string, string>();
    const read = taskAtHistoryPoint(
      {
        record: original,
        entries: await this.store.readHistory(taskId, 0, original.loop.historySeq),
        records: new Map([...audit].map(([key, text]) => [key, JSON.parse(text) as unknown])),
        log: await this.events.read(taskId),
      },
      point
    );
    const { record } = await forkTask(this.deps, { original, ...read, caller, ...options });
    this.#runnable.push(record.task.id);
    await this.settle();
    return this.task(record.task.id);
  }

  async complete(
    taskId: string,
    participantId: string,
    reason: string | null = null
  ): Promise<void> {
    await requestCompletion(this.deps, { taskId, participantId, reason });
    await this.settle();
  }

  async cancel(taskId: string, requestedBy: string | null): Promise<void> {
    await cancelTask(this.deps, { taskId, requestedBy });
    await this.settle();
  }

  async task(taskId: string): Promise<TaskRecord> {
    const record = await this.store.get(taskId);
    if (record === undefined) throw new Error(`no task ${taskId}`);
    return record;
  }

  #follow(wake: Wake): void {
    if (wake.action === 'resume') this.#runnable.push(wake.taskId);
    if (wake.action === 'cut') this.#runnable.push(wake.taskId);
    // Not parked: the task is queued to run already (the harness runs each to its park or end).
    if (wake.action === 'ensure-running' && !this.#runnable.includes(wake.taskId)) {
      this.#runnable.push(wake.taskId);
    }
    // A parked execution resumes to see its end; a running one sees it at its next state.
    if (wake.action === 'ended') {
      for (const execution of wake.executions) {
        if (execution.token !== null) this.#runnable.push(execution.taskId);
      }
    }
  }

  #settling = false;

  /**
   * Runs until nothing is runnable and every child change has reached its parent. Re-entrant
   * calls (from a hook, mid-turn) only queue work: like the real runtime, a wake never runs
   * inside the turn that caused it.
   */
  async settle(): Promise<void> {
    if (this.#settling) return;
    this.#settling = true;
    try {
      await this.#drainQueues();
    } finally {
      this.#settling = false;
    }
  }

  async #drainQueues(): Promise<void> {
    for (let guard = 0; guard < 10_000; guard++) {
      const change = this.#changes.shift();
      if (change !== undefined) {
        await recordChildChange(this.deps, change);
        continue;
      }
      const taskId = this.#runnable.shift();
      if (taskId === undefined) return;
      const outcome = await runTask(this.deps, taskId);
      this.outcomes.push({ taskId, outcome });
    }
    throw new Error('the harness did not settle in 10,000 steps');
  }
}
