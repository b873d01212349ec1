/** What starts the key of the audit record intake keeps of each message it decides on. */
export const INTAKE_AUDIT_PREFIX = 'audit:';

/** The key of intake's audit record of one message. */
export const intakeAuditKey = (messageId: string): string => `${INTAKE_AUDIT_PREFIX}${messageId}`;

/** The message an intake audit key names, or `undefined` for any other key. */
export const messageIdOfIntakeKey = (key: string): string | undefined =>
  key.startsWith(INTAKE_AUDIT_PREFIX) ? key.slice(INTAKE_AUDIT_PREFIX.length) : undefined;
