import { type Span, trace } from '@opentelemetry/api';
import type { PendingApproval } from '../../core/loop/loop-state.schema.js';
import type { TaskRecord, TaskStore } from '../../core/ports/task-store.js';
import { HARNESS } from './attributes.js';
import type { ActiveTracing } from './tracing.js';

const decided = (approvals: readonly PendingApproval[], callId: string) =>
  approvals.find((approval) => approval.callId === callId)?.decision ?? null;

/**
 * An approval asked for or answered by this commit, as an event on the span the commit ran in
 * (the tool step that found the call needs one, the request that answered it).
 */
const approvalEvents = (span: Span, base: TaskRecord, record: TaskRecord) => {
  for (const approval of record.loop.approvals) {
    const before = base.loop.approvals.find((each) => each.callId === approval.callId);
    if (before === undefined) {
      span.addEvent('approval.requested', {
        'gen_ai.tool.name': approval.tool,
        'gen_ai.tool.call.id': approval.callId,
        'tiny_harness.approval.approvers': approval.approvers,
        'tiny_harness.approval.deadline': approval.deadline,
      });
    } else if (
      approval.decision !== null &&
      decided(base.loop.approvals, approval.callId) === null
    ) {
      span.addEvent('approval.decided', {
        'gen_ai.tool.name': approval.tool,
        'gen_ai.tool.call.id': approval.callId,
        'tiny_harness.approval.verdict': approval.decision.verdict,
        ...(approval.decision.by === null
          ? {}
          : { 'tiny_harness.approval.by': approval.decision.by }),
      });
    }
  }
};

/**
 * The task store, watched: a created task emits its task span, a commit made in a span of another
 * trace (a request, a parent's step) links that span to the task's, and approvals become events.
 * Reads pass through untouched.
 */
export const tracedTaskStore = (store: TaskStore, tracing: ActiveTracing): TaskStore => ({
  get: (taskId) => store.get(taskId),
  list: (query) => store.list(query),
  readHistory: (taskId, afterSeq, throughSeq) => store.readHistory(taskId, afterSeq, throughSeq),
  readInbox: (taskId) => store.readInbox(taskId),
  inboxSeqOf: (taskId, itemId) => store.inboxSeqOf(taskId, itemId),
  getAudit: (taskId, key) => store.getAudit(taskId, key),
  commit: async (commit) => {
    const result = await store.commit(commit);
    const span = trace.getActiveSpan();
    if (commit.kind === 'create') {
      await tracing.taskCreated(result.record ?? commit.record);
    } else if (commit.kind === 'update' && span?.isRecording()) {
      approvalEvents(span, commit.base, commit.record);
      const lineage = await tracing.lineages.of(commit.record);
      if (lineage.traceId !== span.spanContext().traceId) {
        span.addLink({ context: trace.getSpanContext(tracing.contextOf(lineage))! });
        span.setAttribute(HARNESS.taskId, lineage.taskId);
      }
    }
    return result;
  },
});
