/**
 * The audit extension: a participant reads the auditor's timeline of a task over A2A, with no
 * AWS credentials (docs/a2a/audit.md). Part of the wire contract: a change needs a new version.
 */
export const AUDIT_EXTENSION_URI =
  'https://madarauchiha-314.github.io/tiny-harness/a2a/ext/audit/v1';

/** The JSON-RPC method the extension adds. */
export const AUDIT_JSON_RPC_METHOD = 'tiny-harness/GetTaskTimeline';

/** Its HTTP+JSON route: `GET /tasks/{id}:timeline`. */
export const AUDIT_REST_SUFFIX = ':timeline';
