import type { ChildCreated, ChildRequest } from '../ports/agent-directory.js';
import type { ModelToolCall } from '../ports/model.js';
import type { TaskRecord } from '../ports/task-store.js';
import { isTerminalState, readExtension, stateOf, withExtension } from '../task/a2a-task.js';
import { type Invocation, parseArguments } from '../tools/invoker.js';
import { argumentsOf, type ToolRegistry } from '../tools/registry.js';
import type { IntrinsicContext } from '../tools/tool.js';
import { resultOf } from '../unit-of-work/interpreter.js';
import {
  answer,
  checkpoint,
  commitThen,
  type Facts,
  need,
  type Outcome,
} from '../unit-of-work/operation.js';
import { applyCommand } from './apply-command.js';
import {
  approvalOf,
  heldBehindApproval,
  maskedArguments,
  maskedArgumentsText,
  rejectedResultText,
  withApprovalRequested,
  withFateUnknown,
} from './approvals.js';
import { childBrief } from './children.js';
import type { LoopDeps } from './deps.js';
import { type Change, changeOf, withLoop, withTaskEvent } from './records.js';
import type { ToolCallRef, TurnRef } from './route.schema.js';

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

/** A call to a tool that may run only once: not idempotent, and with effects outside the task. */
const attemptedOnce = (tools: ToolRegistry, call: ModelToolCall): boolean => {
  const registered = tools.get(call.name);
  return registered?.execution === 'external' && !registered.tool.idempotent;
};

/**
 * What approval decides for a call before it may run (pure): ask for it (a call whose tool needs
 * one and has none, its arguments valid), wait (a call behind one waiting, or one not answered
 * yet), give the model a `tool.rejected` result, or run it (approved, or needing none).
 */
const approvalStep = (
  tools: ToolRegistry,
  record: TaskRecord,
  callRef: ToolCallRef,
  call: ModelToolCall,
  now: string
):
  | { kind: 'run' }
  | { kind: 'wait' }
  | { kind: 'request'; change: Change }
  | { kind: 'rejected'; result: Invocation } => {
  const { loop } = record;
  const registered = tools.get(call.name);
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
        now,
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

/** A once-only call whose fate a crash left unknown, back with its approvers (pure). */
const fateUnknown = (
  tools: ToolRegistry,
  record: TaskRecord,
  callRef: ToolCallRef,
  call: ModelToolCall,
  now: string
): Change => {
  const registered = tools.get(call.name);
  const external = registered?.execution === 'external' ? registered : undefined;
  const raw = parseArguments(call.arguments);
  const parsed = external !== undefined && raw.ok ? argumentsOf(external).parse(raw.value) : raw;
  return withFateUnknown(changeOf(record), {
    turn: callRef.ref.turn,
    call,
    approval: external?.tool.approval ?? null,
    arguments:
      external !== undefined && parsed.ok
        ? maskedArguments(parsed.value, argumentsOf(external).parameters)
        : maskedArgumentsText(call.arguments),
    now,
  });
};

/** What the decision on one call may ask for: the invocation, then the child it creates. */
type CallWants = { invocation: 'invoke_tool'; child: 'create_child' };
/** The checkpoint a once-only call reaches: its attempt is on the task, marked by this run. */
type AttemptMarked = 'attempt_marked';

/** What a call's decision knows of the harness besides the task. */
export interface CallSetting {
  tools: ToolRegistry;
  agentId: string;
  /** The remote agents a task may delegate to. */
  agentIds: readonly string[];
}

/** What an intrinsic tool reads of the task it runs for. */
const intrinsicContext = (
  record: TaskRecord,
  setting: CallSetting,
  now: string
): IntrinsicContext => ({
  extension: readExtension(record.task),
  actor: record.loop.actor,
  agentIds: [...setting.agentIds],
  askedThisTurn: record.loop.pendingQuestion !== null,
  agentId: setting.agentId,
  artifactIds: record.task.artifacts.map((artifact) => artifact.artifactId),
  now,
  budgetLeft: record.budgetAvailable,
});

/** The child an invocation creates, if it is a sub-task or participant task command. */
const childRequestOf = (
  record: TaskRecord,
  { ref, callId }: ToolCallRef,
  invocation: Invocation,
  agentId: string
): ChildRequest | undefined => {
  if (invocation.kind !== 'command') return undefined;
  const { command } = invocation;
  if (command.kind !== 'spawn_subtask' && command.kind !== 'create_participant_task') {
    return undefined;
  }
  return childBrief({
    parent: record,
    command,
    messageId: `${ref.taskId}:${ref.generation}:${ref.turn}:${callId}`,
    agentId,
  });
};

/**
 * The decision on one call (pure). Approval first: ask for it, wait, or take its rejection as
 * the result. A tool that may run only once has its attempt committed before it runs (a
 * checkpoint); one whose attempt is on the task but not by this run was interrupted and may have
 * run: it goes back to its approvers, never run again unasked. Then the invocation, the child it
 * creates, and one commit of the result.
 */
export const decideToolCall =
  (callRef: ToolCallRef, setting: CallSetting) =>
  ({
    record,
    observed,
    reached,
    now,
  }: Facts<CallWants, AttemptMarked>): Outcome<undefined, CallWants, AttemptMarked> => {
    const call = callToApply(record, callRef);
    if (call === undefined) return answer(undefined);
    let invocation = observed.invocation;
    if (invocation === undefined && reached === undefined) {
      const approval = approvalStep(setting.tools, record, callRef, call, now);
      if (approval.kind === 'request') return commitThen(record, approval.change, undefined);
      if (approval.kind === 'wait') return answer(undefined);
      if (approval.kind === 'rejected') invocation = approval.result;
      else if (attemptedOnce(setting.tools, call)) {
        if (record.loop.attemptedCalls.includes(call.id)) {
          // Attempted by a run that died before its result: it may have run. Its approvers say.
          const asked = fateUnknown(setting.tools, record, callRef, call, now);
          return commitThen(record, asked, undefined);
        }
        const attempt = withLoop(changeOf(record), (loop) => ({
          ...loop,
          attemptedCalls: [...loop.attemptedCalls, call.id],
        }));
        return checkpoint(record, attempt, 'attempt_marked');
      }
    }
    if (invocation === undefined) {
      const context = intrinsicContext(record, setting, now);
      const effect = { kind: 'invoke_tool', taskId: record.task.id, call, context } as const;
      return need<CallWants>({ key: 'invocation', effect });
    }
    const request = childRequestOf(record, callRef, invocation, setting.agentId);
    const created = observed.child;
    if (request !== undefined && created === undefined) {
      return need<CallWants>({ key: 'child', effect: { kind: 'create_child', request } });
    }
    const change = withToolResult(changeOf(record), callRef, call, invocation, created);
    return commitThen(record, change, undefined);
  };

/**
 * Runs one tool call of the current turn through the validating invoker and applies an
 * intrinsic's command. Each call is its own state, so the execution history shows every call.
 * The result, the transcript entry and the command's effect on the task are one commit,
 * conditioned on the task as read: a call of a cut turn, or of a task that has ended, writes
 * nothing, and `appliedCalls` makes a retried state a no-op. A child's creation is idempotent on
 * its brief's message id, so a retry finds the same child. A tool that may run only once has its
 * attempt committed before it runs: a step re-run after a crash mid-call does not run it a second
 * time, and does not guess either: the call goes back to its approvers (approvals.ts,
 * `withFateUnknown`), who send it again or leave it. A call that needs a participant's approval
 * is not run here: the step records the request (approvals.ts) and the turn parks for it; once
 * answered, the turn's calls run again in order and this step runs it or records its rejection.
 */
export function executeTool(deps: LoopDeps, callRef: ToolCallRef): Promise<undefined> {
  const setting: CallSetting = {
    tools: deps.tools,
    agentId: deps.config.agentId,
    agentIds: deps.agents.agents().map((agent) => agent.id),
  };
  return resultOf(deps, {
    taskId: callRef.ref.taskId,
    decide: decideToolCall(callRef, setting),
  });
}
