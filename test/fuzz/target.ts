import type { FuzzRequest } from './requests.js';
import type { Answer } from './verdict.js';
import type { FuzzWorld } from './world.js';

/** Where the fuzzer sends its requests: the handler in this process, or a running stack. */
export interface FuzzTarget {
  /** The participant ids of the callers the target authenticates (`other` may be absent). */
  callers: { caller: string; other?: string | undefined };
  /** Whether the audit extension's timeline can be read (it needs the stack's Step Functions). */
  servesAudit: boolean;
  send(request: FuzzRequest, as?: 'caller' | 'other'): Promise<Answer>;
  /**
   * A summary of what the caller's tasks hold (records, their versions, events, inbox items, push
   * configs), when the target can read its store: a refused request must leave it as it was.
   */
  footprint?: (world: FuzzWorld) => Promise<string>;
  /** The error-level log lines the target has written, when it can tell. */
  errorLogs?: () => Array<Record<string, unknown>>;
  close(): Promise<void>;
}
