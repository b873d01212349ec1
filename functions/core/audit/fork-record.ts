/** What a fork's and its original's audit records say of the fork (`forked_from`, `fork:<id>`). */
export interface ForkAudit {
  /** The task forked from, and the one made. */
  from_task_id: string;
  fork_task_id: string;
  /** The last history message the fork kept; null when none. */
  message_id: string | null;
  /** The transcript's last seq the fork kept. */
  through_seq: number;
  by: string;
  at: string;
}

/** The fork's own record of where it came from. */
export const FORK_AUDIT_KEY = 'forked_from';
/** The original's record of one fork made from it. */
export const forkAuditKey = (forkId: string) => `fork:${forkId}`;
export const isForkAuditKey = (key: string) => key.startsWith('fork:');
