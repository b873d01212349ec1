import type { FuzzRequest } from './requests.js';
import type { Answer } from './verdict.js';

/** Where the fuzzer sends its requests: the handler in this process, or a running stack. */
export interface FuzzTarget {
  /** The participant ids of the callers the target authenticates (`other` may be absent). */
  callers: { caller: string; other?: string | undefined };
  /** Whether the audit extension's timeline can be read (it needs the stack's Step Functions). */
  servesAudit: boolean;
  send(request: FuzzRequest, as?: 'caller' | 'other'): Promise<Answer>;
  /** The error-level log lines the target has written, when it can tell. */
  errorLogs?: () => Array<Record<string, unknown>>;
  close(): Promise<void>;
}
