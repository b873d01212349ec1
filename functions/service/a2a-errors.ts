import { randomUUID } from 'node:crypto';
import { type ErrorCode, isHarnessError } from '../core/errors.js';

/**
 * The A2A errors this server answers with (spec §5.4, §9.5) and how each binding spells them:
 * the JSON-RPC code, the HTTP status and `google.rpc.Status` name of the HTTP+JSON binding, and the
 * `google.rpc.ErrorInfo` reason both bindings carry (JSON-RPC `error.data`, REST `error.details`),
 * which is what the SDK client turns into its typed errors. Errors with no A2A reason (an unknown
 * method or route, an internal error) carry no ErrorInfo: a client must not mistake them for one.
 */
export const A2A_ERRORS = {
  TaskNotFound: { code: -32001, http: 404, status: 'NOT_FOUND', reason: 'TASK_NOT_FOUND' },
  TaskNotCancelable: {
    code: -32002,
    http: 400,
    status: 'FAILED_PRECONDITION',
    reason: 'TASK_NOT_CANCELABLE',
  },
  UnsupportedOperation: {
    code: -32004,
    http: 400,
    status: 'FAILED_PRECONDITION',
    reason: 'UNSUPPORTED_OPERATION',
  },
  ContentTypeNotSupported: {
    code: -32005,
    http: 400,
    status: 'INVALID_ARGUMENT',
    reason: 'CONTENT_TYPE_NOT_SUPPORTED',
  },
  ExtensionSupportRequired: {
    code: -32008,
    http: 400,
    status: 'FAILED_PRECONDITION',
    reason: 'EXTENSION_SUPPORT_REQUIRED',
  },
  VersionNotSupported: {
    code: -32009,
    http: 400,
    status: 'FAILED_PRECONDITION',
    reason: 'VERSION_NOT_SUPPORTED',
  },
  // The SDK reads all three malformed-request codes as RequestMalformedError (reason INVALID_PARAMS).
  ParseError: { code: -32700, http: 400, status: 'INVALID_ARGUMENT', reason: 'INVALID_PARAMS' },
  InvalidRequest: { code: -32600, http: 400, status: 'INVALID_ARGUMENT', reason: 'INVALID_PARAMS' },
  MethodNotFound: { code: -32601, http: 404, status: 'NOT_FOUND', reason: null },
  InvalidParams: { code: -32602, http: 400, status: 'INVALID_ARGUMENT', reason: 'INVALID_PARAMS' },
  InternalError: { code: -32603, http: 500, status: 'INTERNAL', reason: null },
  /**
   * Ours (A2A has no error for it): a write that kept losing the race for a busy task (dozens of
   * senders at one parked task) gave up, with nothing written. Retrying the same request is safe
   * (a message id already taken in is a duplicate) and, a moment later, succeeds. The code is
   * from JSON-RPC's range for implementation-defined server errors.
   */
  Busy: { code: -32099, http: 503, status: 'UNAVAILABLE', reason: null },
} as const satisfies Record<
  string,
  { code: number; http: number; status: string; reason: string | null }
>;
export type A2aErrorName = keyof typeof A2A_ERRORS;

/** The `google.rpc.ErrorInfo` domain of A2A errors (§3.3.2). */
export const A2A_ERROR_DOMAIN = 'a2a-protocol.org';
const ERROR_INFO_TYPE = 'type.googleapis.com/google.rpc.ErrorInfo';
const BAD_REQUEST_TYPE = 'type.googleapis.com/google.rpc.BadRequest';
const REQUEST_INFO_TYPE = 'type.googleapis.com/google.rpc.RequestInfo';

/** One field of a request that was refused, and why (`google.rpc.BadRequest.FieldViolation`). */
export interface FieldViolation {
  /** The field's path in the request, `message.parts[0]`. */
  field: string;
  description: string;
}

export interface A2aErrorOptions {
  /** For InvalidParams from validation: each refused field. */
  violations?: readonly FieldViolation[];
  /** For InternalError: what went wrong inside (logged, never answered). */
  cause?: unknown;
  /** For InternalError: the id the client gets and the error log line carries. */
  correlationId?: string;
}

/** An error answered to the client as it is. */
export class A2aError extends Error {
  override readonly name = 'A2aError';
  readonly kind: A2aErrorName;
  readonly violations: readonly FieldViolation[];
  /**
   * For an InternalError: the id the client gets and the error log line carries, so an operator
   * can find what happened from what a user reports (the cause itself is never answered).
   */
  readonly correlationId: string | undefined;
  constructor(kind: A2aErrorName, message: string, options: A2aErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.kind = kind;
    this.violations = options.violations ?? [];
    this.correlationId = options.correlationId;
  }
}

/** What the client may learn of something that went wrong inside: that it did, and its id. */
export const internalError = (cause: unknown): A2aError => {
  const correlationId = randomUUID();
  return new A2aError('InternalError', `internal error (correlation id ${correlationId})`, {
    cause,
    correlationId,
  });
};

/**
 * The error's details (`google.rpc.Status.details`, JSON-RPC `error.data`): the ErrorInfo of an
 * A2A error first (what the SDK clients read), then the refused fields of a malformed request
 * (BadRequest), or the correlation id of an internal error (RequestInfo).
 */
export const errorDetails = (error: A2aError): Array<Record<string, unknown>> => {
  const { reason } = A2A_ERRORS[error.kind];
  const details: Array<Record<string, unknown>> =
    reason === null ? [] : [{ '@type': ERROR_INFO_TYPE, reason, domain: A2A_ERROR_DOMAIN }];
  if (error.violations.length > 0) {
    details.push({
      '@type': BAD_REQUEST_TYPE,
      fieldViolations: error.violations.map(({ field, description }) => ({ field, description })),
    });
  }
  if (error.correlationId !== undefined) {
    details.push({ '@type': REQUEST_INFO_TYPE, requestId: error.correlationId });
  }
  return details;
};

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
  'tool.rejected': 'InvalidParams',
  'approval.not_allowed': 'InvalidParams',
  'approval.not_pending': 'InvalidParams',
  'channel.not_a_member': 'TaskNotFound',
  'participant.role_required': 'InvalidParams',
  'participant.refused': 'InvalidParams',
  'fork.point_unknown': 'InvalidParams',
  'envelope.invalid': 'InvalidParams',
  'envelope.refused': 'InvalidParams',
  'envelope.server_controlled': 'InvalidParams',
  'envelope.admin_required': 'InvalidParams',
  'criterion.unknown': 'InvalidParams',
  'criterion.invalid_evidence': 'InvalidParams',
  'criterion.not_met': 'InvalidParams',
  'criterion.reviewer_required': 'InvalidParams',
  'message.invalid': 'InvalidParams',
  'task.not_found': 'TaskNotFound',
  'task.closed': 'UnsupportedOperation',
  'task.invalid': 'InternalError',
  'task.turn_limit': 'InternalError',
  'store.conflict': 'Busy',
  'store.exists': 'InternalError',
  'model.script_exhausted': 'InternalError',
  'model.failed': 'InternalError',
  'model.retryable': 'InternalError',
  'hook.abort': 'InvalidParams',
  'secret.unreadable': 'InternalError',
  'remote.refused': 'InternalError',
  'remote.failed': 'InternalError',
  'tool.unreachable': 'InternalError',
};

/**
 * Any error as the A2A error a client may see: typed ones mapped, the rest never exposed. An
 * error that maps to InternalError (a store conflict, a model failure, anything unexpected)
 * keeps its message to itself: it may name tables, keys or hosts.
 */
export const toA2aError = (error: unknown): A2aError => {
  if (error instanceof A2aError) return error;
  if (isHarnessError(error)) {
    const kind = A2A_ERROR_FOR_CODE[error.code];
    if (kind === 'Busy') {
      return new A2aError(kind, 'the task is busy with other writers: nothing was written; retry');
    }
    if (kind !== 'InternalError') return new A2aError(kind, error.message);
  }
  return internalError(error);
};
