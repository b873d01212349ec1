import { HookAbortError } from '../errors.js';
import type { ChildCreated } from '../ports/agent-directory.js';
import type { ModelToolCall } from '../ports/model.js';
import type { TaskRecord } from '../ports/task-store.js';
import { isTerminalState, readExtension, stateOf, withExtension } from '../task/a2a-task.js';
import { type Invocation, invokeTool, parseArguments } from '../tools/invoker.js';
import { argumentsOf } from '../tools/registry.js';
import { errorResultText } from '../tools/tool.js';
import { applyCommand } from './apply-command.js';
import {
  approvalOf,
  heldBehindApproval,
  maskedArguments,
  rejectedResultText,
  withApprovalRequested,
} from './approvals.js';
import { childBrief } from './children.js';
import type { LoopDeps } from './deps.js';
import {
  type Change,
  changeOf,
  type Decision,
  decideAndCommit,
  decided,
  loadRecord,
  withLoop,
  withTaskEvent,
} from './records.js';
import type { ToolCallRef, TurnRef } from './route.schema.js';

const aborted = (error: HookAbortError): Invocation => ({
  kind: 'error',
  code: 'hook.abort',
  text: errorResultText('hook.abort', error.message),
});

export const toolKey = (ref: TurnRef, callId: string) =>
  `tool:${ref.generation}:${ref.turn}:${callId}`;

/** The call of the current turn that `callRef` names, if this step may still apply it. */
const callToApply = (
  record: TaskRecord,
  { ref, callId }: ToolCallRef
): ModelToolCall | undefined => {
  if (isTerminalState(stateOf(record.task))) return undefined;
  if (record.loop.generation !== ref.generation || record.loop.turn !== ref.turn) return undefined;
  if (record.loop.appliedCalls.includes(callId)) return undefined;
  const call = record.loop.response?.toolCalls.find((candidate) => candidate.id === callId);
  if (call === undefined)
    throw new Error(`turn ${ref.turn} of ${ref.taskId} has no tool call ${callId}`);
  return call;
};

/** The invoker's result applied to the task (pure): the transcript entry, the command, the Task. */
export const withToolResult = (
  change: Change,
  callRef: ToolCallRef,
  call: ModelToolCall,
  result: Invocation,
  created: ChildCreated | undefined
): Change => {
  const { callId } = callRef;
  const { record } = change;
  const seq = record.loop.historySeq + 1;
  let extension = readExtension(record.task);
  let loop = {
    ...record.loop,
    historySeq: seq,
    needsModel: true,
    appliedCalls: [...record.loop.appliedCalls, callId],
  };
  let extensionChanged = false;
  if (result.kind === 'command') {
    const applied = applyCommand({ extension, loop }, result.command, { callId, created });
    extensionChanged = applied.extension !== extension;
    extension = applied.extension;
    loop = applied.loop;
  }
  const next: Change = {
    ...change,
    record: { ...record, task: withExtension(record.task, extension), loop },
    history: [
      ...change.history,
      {
        seq,
        kind: 'tool_result',
        callId,
        name: call.name,
        output: result.text,
        isError: result.kind === 'error' || (result.kind === 'output' && result.isError),
      },
    ],
    audit: [...change.audit, { key: toolKey(callRef.ref, callId), value: result }],
  };
  // Renderers read the extension only from Task events: every plan or row change is followed
  // by the updated Task.
  return extensionChanged ? withTaskEvent(next) : next;
};

/** The validating invoker inside the `tool.invoked` hooks; an attached plan through `plan.created`. */
const invoke = async (
  deps: LoopDeps,
  record: TaskRecord,
  call: ModelToolCall
): Promise<Invocation> => {
  const taskId = record.task.id;
  let invocation: Invocation;
  try {
    invocation = await deps.hooks.run('tool.invoked', { taskId, call }, (context) =>
      invokeTool(context.call, {
        registry: deps.tools,
        runner: deps.runner,
        taskId,
        context: {
          extension: readExtension(record.task),
          actor: record.loop.actor,
          agentIds: deps.agents.agents().map((agent) => agent.id),
          askedThisTurn: record.loop.pendingQuestion !== null,
          agentId: deps.config.agentId,
          artifactIds: record.task.artifacts.map((artifact) => artifact.artifactId),
          now: deps.clock.now(),
        },
      })
    );
  } catch (error) {
    if (error instanceof HookAbortError) return aborted(error);
    throw error;
  }
  if (invocation.kind !== 'command' || invocation.command.kind !== 'attach_plan') return invocation;
  const { command } = invocation;
  try {
    const plan = await deps.hooks.run(
      'plan.created',
      { taskId, plan: command.plan },
      (c) => c.plan
    );
    return { ...invocation, command: { ...command, plan } };
  } catch (error) {
    if (!(error instanceof HookAbortError)) throw error;
    return aborted(error);
  }
};

/** A call to a tool that may run only once: not idempotent, and with effects outside the task. */
const attemptedOnce = (deps: LoopDeps, call: ModelToolCall): boolean => {
  const registered = deps.tools.get(call.name);
  return registered?.execution === 'external' && !registered.tool.idempotent;
};

const interrupted = (call: ModelToolCall): Invocation => ({
  kind: 'error',
  code: 'tool.not_retried',
  text: errorResultText(
    'tool.not_retried',
    `${call.name} was interrupted before its result was recorded: it may have run, and it is not attempted again`
  ),
});

/**
 * What approval decides for a call before it may run (pure): ask for it (a call whose tool needs
 * one and has none, its arguments valid), wait (a call behind one waiting, or one not answered
 * yet), give the model a `tool.rejected` result, or run it (approved, or needing none).
 */
const approvalStep = (
  deps: LoopDeps,
  record: TaskRecord,
  callRef: ToolCallRef,
  call: ModelToolCall
):
  | { kind: 'run' }
  | { kind: 'wait' }
  | { kind: 'request'; change: Change }
  | { kind: 'rejected'; result: Invocation } => {
  const { loop } = record;
  const registered = deps.tools.get(call.name);
  const policy = registered?.execution === 'external' ? (registered.tool.approval ?? null) : null;
  const entry = approvalOf(loop, call.id);
  if (policy !== null && registered !== undefined && entry === undefined) {
    // Invalid arguments are refused by the invoker as for any call: nobody is asked about them.
    const raw = parseArguments(call.arguments);
    const parsed = raw.ok ? argumentsOf(registered).parse(raw.value) : raw;
    if (parsed.ok) {
      const change = withApprovalRequested(changeOf(record), {
        turn: callRef.ref.turn,
        call,
        approval: policy,
        arguments: maskedArguments(parsed.value, argumentsOf(registered).parameters),
        now: deps.clock.now(),
      });
      return { kind: 'request', change };
    }
  }
  if (heldBehindApproval(loop, call.id)) return { kind: 'wait' };
  if (entry === undefined || entry.decision?.verdict === 'approved') return { kind: 'run' };
  if (entry.decision === null) return { kind: 'wait' };
  return {
    kind: 'rejected',
    result: { kind: 'error', code: 'tool.rejected', text: rejectedResultText(entry) },
  };
};

/**
 * Runs one tool call of the current turn through the validating invoker and applies an
 * intrinsic's command. Each call is its own state, so the execution history shows every call.
 * The result, the transcript entry and the command's effect on the task are one commit,
 * conditioned on the task as read: a call of a cut turn, or of a task that has ended, writes
 * nothing, and `appliedCalls` makes a retried state a no-op. A child's creation is idempotent on
 * its brief's message id, so a retry finds the same child. A tool that may run only once has its
 * attempt committed before it runs: a step re-run after a crash mid-call records the call as
 * interrupted instead of running it a second time. A call that needs a participant's approval
 * is not run here: the step records the request (approvals.ts) and the turn parks for it; once
 * answered, the turn's calls run again in order and this step runs it or records its rejection.
 */
export const executeTool = async (deps: LoopDeps, callRef: ToolCallRef): Promise<void> => {
  const { ref, callId } = callRef;
  let outcome: { result: Invocation; created: ChildCreated | undefined } | undefined;
  /** This run committed the call's attempt: the marker it finds next is its own. */
  let attempting = false;
  for (;;) {
    const { result: step } = await decideAndCommit(
      deps,
      () => loadRecord(deps, ref.taskId),
      async (record): Promise<Decision<'attempting' | 'done'>> => {
        const call = callToApply(record, callRef);
        if (call === undefined) return { result: 'done' };
        if (outcome === undefined && !attempting) {
          const approval = approvalStep(deps, record, callRef, call);
          if (approval.kind === 'request') return decided(record, approval.change, 'done');
          if (approval.kind === 'wait') return { result: 'done' };
          if (approval.kind === 'rejected')
            outcome = { result: approval.result, created: undefined };
        }
        if (outcome === undefined && !attempting && attemptedOnce(deps, call)) {
          if (record.loop.attemptedCalls.includes(callId)) {
            outcome = { result: interrupted(call), created: undefined };
          } else {
            const attempt = withLoop(changeOf(record), (loop) => ({
              ...loop,
              attemptedCalls: [...loop.attemptedCalls, callId],
            }));
            return decided(record, attempt, 'attempting');
          }
        }
        outcome ??= await runCall(deps, record, callRef, call);
        const change = withToolResult(
          changeOf(record),
          callRef,
          call,
          outcome.result,
          outcome.created
        );
        return decided(record, change, 'done');
      }
    );
    if (step === 'done') return;
    attempting = true;
  }
};

/** The invocation of a call (and the child it created), made once per attempt of the step. */
const runCall = async (
  deps: LoopDeps,
  record: TaskRecord,
  { ref, callId }: ToolCallRef,
  call: ModelToolCall
): Promise<{ result: Invocation; created: ChildCreated | undefined }> => {
  const result = await invoke(deps, record, call);
  let created: ChildCreated | undefined;
  if (
    result.kind === 'command' &&
    (result.command.kind === 'spawn_subtask' || result.command.kind === 'create_participant_task')
  ) {
    created = await deps.agents.createChild(
      childBrief({
        parent: record,
        command: result.command,
        messageId: `${ref.taskId}:${ref.generation}:${ref.turn}:${callId}`,
        agentId: deps.config.agentId,
      })
    );
  }
  return { result, created };
};
