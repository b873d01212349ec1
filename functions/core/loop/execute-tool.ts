import { HookAbortError } from '../errors.js';
import type { ChildCreated } from '../ports/agent-directory.js';
import { readExtension, withExtension } from '../task/a2a-task.js';
import { type Invocation, invokeTool } from '../tools/invoker.js';
import { errorResultText } from '../tools/tool.js';
import { applyCommand } from './apply-command.js';
import { childBrief } from './children.js';
import type { LoopDeps } from './deps.js';
import { emitTask, loadRecord, mutateRecord } from './records.js';
import type { ToolCallRef } from './route.schema.js';

const aborted = (error: HookAbortError): Invocation => ({
  kind: 'error',
  code: 'hook.abort',
  text: errorResultText('hook.abort', error.message),
});

/**
 * Runs one tool call of the current turn through the validating invoker (inside the
 * `tool.invoked` hooks) and applies an intrinsic's command. Each call is its own state, so the
 * execution history shows every call. The invocation is stored once, a child's creation is
 * idempotent on its brief's message id, and `appliedCalls` guards the apply, so a retried state
 * never acts twice.
 */
export const executeTool = async (deps: LoopDeps, { ref, callId }: ToolCallRef): Promise<void> => {
  const taskId = ref.taskId;
  const record = await loadRecord(deps, taskId);
  if (record.loop.generation !== ref.generation || record.loop.turn !== ref.turn) return;
  if (record.loop.appliedCalls.includes(callId)) return;
  const call = record.loop.response?.toolCalls.find((candidate) => candidate.id === callId);
  if (call === undefined)
    throw new Error(`turn ${ref.turn} of ${taskId} has no tool call ${callId}`);

  const onceKey = `tool:${ref.generation}:${ref.turn}:${callId}`;
  const invocation =
    (await deps.store.getOnce<Invocation>(taskId, onceKey)) ??
    (await deps.store.putOnce(
      taskId,
      onceKey,
      await deps.hooks
        .run('tool.invoked', { taskId, call }, (context) =>
          invokeTool(context.call, {
            registry: deps.tools,
            runner: deps.runner,
            taskId,
            context: {
              extension: readExtension(record.task),
              actor: record.loop.actor,
              agentIds: deps.agents.agents().map((agent) => agent.id),
              askedThisTurn: record.loop.pendingQuestion !== null,
            },
          })
        )
        .catch((error: unknown) => {
          if (error instanceof HookAbortError) return aborted(error);
          throw error;
        })
    ));

  let result = invocation;
  let created: ChildCreated | undefined;
  if (invocation.kind === 'command') {
    const { command } = invocation;
    if (command.kind === 'attach_plan') {
      try {
        const plan = await deps.hooks.run(
          'plan.created',
          { taskId, plan: command.plan },
          (c) => c.plan
        );
        result = { ...invocation, command: { ...command, plan } };
      } catch (error) {
        if (!(error instanceof HookAbortError)) throw error;
        result = aborted(error);
      }
    }
    if (command.kind === 'spawn_subtask' || command.kind === 'create_participant_task') {
      created = await deps.agents.createChild(
        childBrief({
          parent: record,
          command,
          messageId: `${taskId}:${ref.generation}:${ref.turn}:${callId}`,
          agentId: deps.config.agentId,
        })
      );
    }
  }

  const seq = record.loop.historySeq + 1;
  await deps.store.appendHistory(taskId, [
    {
      seq,
      kind: 'tool_result',
      callId,
      name: call.name,
      output: result.text,
      isError: result.kind === 'error' || (result.kind === 'output' && result.isError),
    },
  ]);
  let extensionChanged = false;
  const updated = await mutateRecord(deps, taskId, (current) => {
    if (current.loop.appliedCalls.includes(callId)) return undefined;
    let extension = readExtension(current.task);
    let loop = {
      ...current.loop,
      historySeq: seq,
      needsModel: true,
      appliedCalls: [...current.loop.appliedCalls, callId],
    };
    if (result.kind === 'command') {
      const applied = applyCommand({ extension, loop }, result.command, { callId, created });
      extensionChanged = applied.extension !== extension;
      extension = applied.extension;
      loop = applied.loop;
    }
    return { ...current, task: withExtension(current.task, extension), loop };
  });
  // Renderers read the extension only from Task events: every plan or row change is followed
  // by the updated Task.
  if (extensionChanged)
    await emitTask(deps, updated, `${ref.generation}:${ref.turn}:${callId}:task`);
};
