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
} as const satisfies Record<
  string,
  { code: number; http: number; status: string; reason: string | null }
>;
export type A2aErrorName = keyof typeof A2A_ERRORS;

/** The `google.rpc.ErrorInfo` domain of A2A errors (§3.3.2). */
export const A2A_ERROR_DOMAIN = 'a2a-protocol.org';
const ERROR_INFO_TYPE = 'type.googleapis.com/google.rpc.ErrorInfo';

/** An error answered to the client as it is. */
export class A2aError extends Error {
  override readonly name = 'A2aError';
  readonly kind: A2aErrorName;
  constructor(kind: A2aErrorName, message: string) {
    super(message);
    this.kind = kind;
  }
}

/** The error's ErrorInfo list: one entry for an A2A error, none for the others. */
export const errorDetails = (error: A2aError): Array<Record<string, string>> => {
  const { reason } = A2A_ERRORS[error.kind];
  return reason === null ? [] : [{ '@type': ERROR_INFO_TYPE, reason, domain: A2A_ERROR_DOMAIN }];
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
  'secret.unreadable': 'InternalError',
};

/** Any error as the A2A error a client may see: typed ones mapped, the rest never exposed. */
export const toA2aError = (error: unknown): A2aError => {
  if (error instanceof A2aError) return error;
  if (isHarnessError(error)) return new A2aError(A2A_ERROR_FOR_CODE[error.code], error.message);
  return new A2aError('InternalError', 'internal error');
};
