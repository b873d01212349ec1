/**
 * Which execution step ran each tool call, and what the call was: a call that waits for approval
 * has a tool step when approval is asked for and another once it is answered, and only the second
 * runs it (or records that it never will). Pure: reads the records the loop wrote.
 */
import { approvalAuditKey, maskedArgumentsText } from '../loop/approvals.js';
import type { ModelToolCall } from '../ports/model.js';
import type { StepRun } from './execution-history.js';

/**
 * What the loop records of an approval (`approval:<turn>:<call>:requested|decided`), and of one
 * asked again for a call whose fate a crash left unknown (`asked_again|decided_again`).
 */
export interface ApprovalAuditRow {
  call_id: string;
  tool: string;
  /** Masked as approvers were shown them (by the tool's schema too). */
  arguments: string;
  approvers?: string[];
  deadline?: string;
  verdict?: 'approved' | 'rejected' | 'expired';
  by?: string | null;
  reason?: string | null;
  /** Asked again: the call may or may not have run. */
  fate_unknown?: boolean;
  at: string;
}

type Records = ReadonlyMap<string, unknown>;

export const toolRecordKey = (generation: number, turn: number, callId: string) =>
  `tool:${generation}:${turn}:${callId}`;

const approvalRow = (
  records: Records,
  turn: number,
  callId: string,
  event: 'requested' | 'decided' | 'asked_again' | 'decided_again'
) => records.get(approvalAuditKey(turn, callId, event)) as ApprovalAuditRow | undefined;

/** The call's last approval asked for and its last answer (asked again after a crash, or once). */
const lastApproval = (records: Records, turn: number, callId: string) => ({
  asked:
    approvalRow(records, turn, callId, 'asked_again') ??
    approvalRow(records, turn, callId, 'requested'),
  decided:
    approvalRow(records, turn, callId, 'decided_again') ??
    approvalRow(records, turn, callId, 'decided'),
});

/**
 * The step that ran each call of one execution, by its record key: the first that succeeded, or
 * for a call that waited for approval the first after the answer (the step before it only asked).
 */
export const stepsThatRan = (
  runs: readonly StepRun[],
  generation: number,
  records: Records
): Map<string, StepRun> => {
  const chosen = new Map<string, StepRun>();
  for (const run of runs) {
    if (run.op !== 'execute_tool' || run.outcome !== 'succeeded') continue;
    if (run.ref === undefined || run.callId === undefined) continue;
    const key = toolRecordKey(generation, run.ref.turn, run.callId);
    if (chosen.has(key)) continue;
    const { asked, decided } = lastApproval(records, run.ref.turn, run.callId);
    if (asked !== undefined) {
      if (decided === undefined || Date.parse(run.scheduledAt) < Date.parse(decided.at)) continue;
    }
    chosen.set(key, run);
  }
  return chosen;
};

/**
 * The call the model made, from its turn's response: turns count across generations, so a call
 * run by a later generation (its approval expired across a renewal) is found in the one that
 * asked for it.
 */
const modelCall = (
  records: Records,
  generation: number,
  turn: number,
  callId: string
): ModelToolCall | undefined => {
  const own = records.get(`response:${generation}:${turn}`) as
    | { toolCalls: ModelToolCall[] }
    | undefined;
  const found = own?.toolCalls.find((call) => call.id === callId);
  if (found !== undefined) return found;
  for (const [key, value] of records) {
    if (!new RegExp(`^response:\\d+:${turn}$`).test(key)) continue;
    const call = (value as { toolCalls: ModelToolCall[] }).toolCalls.find((c) => c.id === callId);
    if (call !== undefined) return call;
  }
  return undefined;
};

export interface CallFacts {
  name: string;
  /** Masked: as approvers saw them when the call waited for approval. */
  arguments: string;
  /** Why it never ran, when an approver rejected it or nobody answered in time. */
  neverRan: {
    verdict: 'rejected' | 'expired';
    by: string | null;
    reason: string | null;
    /** Left after a crash: it may have run once, and was not sent again. */
    mayHaveRun: boolean;
  } | null;
}

export const callFacts = (
  records: Records,
  generation: number,
  turn: number,
  callId: string
): CallFacts => {
  const call = modelCall(records, generation, turn, callId);
  const requested = approvalRow(records, turn, callId, 'requested');
  const { asked, decided } = lastApproval(records, turn, callId);
  const verdict = decided?.verdict;
  return {
    name: call?.name ?? requested?.tool ?? 'unknown tool',
    arguments: (requested ?? asked)?.arguments ?? maskedArgumentsText(call?.arguments ?? ''),
    neverRan:
      verdict === 'rejected' || verdict === 'expired'
        ? {
            verdict,
            by: decided?.by ?? null,
            reason: decided?.reason ?? null,
            mayHaveRun: asked?.fate_unknown === true,
          }
        : null,
  };
};

/** "never ran: rejected by alice: I still need it", "never ran: expired by the deadline: …". */
export const neverRanText = (neverRan: NonNullable<CallFacts['neverRan']>) =>
  `${neverRan.mayHaveRun ? 'may have run before the harness stopped, not sent again' : 'never ran'}: ${neverRan.verdict === 'expired' ? 'expired by the deadline' : `rejected by ${neverRan.by ?? 'an approver'}`}${neverRan.reason ? `: ${neverRan.reason}` : ''}`;
