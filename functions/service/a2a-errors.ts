import type { ErrorCode } from '../core/errors.js';

/** The A2A errors this server answers with (spec §5.4) and their JSON-RPC codes. */
export const A2A_ERRORS = {
  TaskNotFound: { code: -32001, http: 404 },
  TaskNotCancelable: { code: -32002, http: 400 },
  UnsupportedOperation: { code: -32004, http: 400 },
  VersionNotSupported: { code: -32009, http: 400 },
  ParseError: { code: -32700, http: 400 },
  InvalidRequest: { code: -32600, http: 400 },
  MethodNotFound: { code: -32601, http: 404 },
  InvalidParams: { code: -32602, http: 400 },
  InternalError: { code: -32603, http: 500 },
} as const;
export type A2aErrorName = keyof typeof A2A_ERRORS;

/** An error answered to the client as it is. */
export class A2aError extends Error {
  override readonly name = 'A2aError';
  readonly kind: A2aErrorName;
  constructor(kind: A2aErrorName, message: string) {
    super(message);
    this.kind = kind;
  }
}

/**
 * Every core error code mapped to the A2A error a client gets. Typed as a Record over all codes,
 * so a new code does not compile until it is mapped here.
 */
export const A2A_ERROR_FOR_CODE: Record<ErrorCode, A2aErrorName> = {
  'plan.cycle': 'InvalidParams',
  'plan.missing': 'InvalidParams',
  'plan.unknown_step': 'InvalidParams',
  'tool.invalid_arguments': 'InvalidParams',
  'tool.not_found': 'InvalidParams',
  'tool.not_retried': 'InternalError',
  'tool.refused': 'InvalidParams',
  'channel.not_a_member': 'TaskNotFound',
  'envelope.invalid': 'InvalidParams',
  'envelope.refused': 'InvalidParams',
  'envelope.server_controlled': 'InvalidParams',
  'envelope.admin_required': 'InvalidParams',
  'message.invalid': 'InvalidParams',
  'task.not_found': 'TaskNotFound',
  'task.closed': 'UnsupportedOperation',
  'task.invalid': 'InternalError',
  'task.turn_limit': 'InternalError',
  'store.conflict': 'InternalError',
  'store.exists': 'InternalError',
  'model.script_exhausted': 'InternalError',
  'model.failed': 'InternalError',
  'model.retryable': 'InternalError',
  'hook.abort': 'InvalidParams',
};
