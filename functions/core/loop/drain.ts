import type { TaskRecord } from '../ports/task-store.js';
import { isTerminalState, readExtension, stateName, stateOf } from '../task/a2a-task.js';
import { agentIsAssignee, assigneeOf } from './assignee.js';
import type { LoopDeps } from './deps.js';
import type { HistoryEntry } from './history.schema.js';
import { loadRecord, mutateRecord } from './records.js';
import { shouldRenew } from './renewal-policy.js';
import type { StepResult, TurnRef } from './route.schema.js';
import { markWorking, parkWaitingForInput } from './status.js';

/**
 * Folds what arrived since the last drain into the transcript: accepted messages (a reply to the
 * pending question is marked as such and clears it) and notes from children. Idempotent: the
 * entries' seqs and the inbox cursor come from the record, and the history append is
 * put-if-absent, so a retried drain writes the same entries once.
 */
const foldInbox = async (deps: LoopDeps, record: TaskRecord): Promise<TaskRecord> => {
  const taskId = record.task.id;
  const items = await deps.store.readInbox(taskId, record.loop.inboxCursor);
  const last = items.at(-1);
  if (last === undefined) return record;

  const extension = readExtension(record.task);
  const participantTask = !agentIsAssignee(extension, deps.config.agentId);
  let { historySeq, pendingQuestion, actor, needsModel, completionRequest } = record.loop;
  const entries: HistoryEntry[] = [];
  for (const item of items) {
    if (item.kind === 'note') {
      entries.push({
        seq: ++historySeq,
        kind: 'note',
        fromTaskId: item.fromTaskId,
        text: item.text,
      });
      needsModel ||= item.result;
      continue;
    }
    let text = item.text;
    if (pendingQuestion !== null && item.participantId === pendingQuestion.participantId) {
      text = `Reply from ${item.participantId} to "${pendingQuestion.question}": ${text}`;
      pendingQuestion = null;
    }
    entries.push({
      seq: ++historySeq,
      kind: 'participant_message',
      participantId: item.participantId,
      source: item.source,
      text,
    });
    actor = item.participantId;
    if (participantTask && item.participantId === assigneeOf(extension)) {
      // The assignee's answer is the participant task's result.
      completionRequest = { requestedBy: item.participantId, reason: item.text };
    } else {
      needsModel = !participantTask;
    }
  }
  await deps.store.appendHistory(taskId, entries);
  return mutateRecord(deps, taskId, (current) =>
    current.loop.inboxCursor !== record.loop.inboxCursor
      ? undefined
      : {
          ...current,
          loop: {
            ...current.loop,
            inboxCursor: last.seq,
            historySeq,
            pendingQuestion,
            actor,
            needsModel,
            completionRequest,
          },
        }
  );
};

/** The first state of every turn: fold the inbox, then decide what the turn is. */
export const drain = async (deps: LoopDeps, ref: TurnRef): Promise<StepResult> => {
  const loaded = await loadRecord(deps, ref.taskId);
  const state = stateOf(loaded.task);
  if (isTerminalState(state)) return { ref, route: { next: 'end', state: stateName(state) } };
  if (loaded.loop.generation !== ref.generation) return { ref, route: { next: 'superseded' } };
  if (shouldRenew(loaded.loop, deps.config)) return { ref, route: { next: 'renew' } };

  const record = await foldInbox(deps, loaded);
  const current = { ...ref, turn: record.loop.turn };
  const { loop } = record;
  if (loop.completionRequest !== null) return { ref: current, route: { next: 'finish' } };
  if (loop.pendingQuestion !== null) {
    const { question, options } = loop.pendingQuestion;
    const text = options.length > 0 ? `${question}\nOptions: ${options.join(', ')}` : question;
    return parkWaitingForInput(deps, record, current, 'awaiting-answer', text);
  }
  if (!loop.needsModel) return { ref: current, route: { next: 'finish' } };
  await markWorking(deps, record, current);
  return { ref: current, route: { next: 'assemble' } };
};
