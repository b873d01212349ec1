/**
 * The published identifiers of the tiny-harness extensions. These strings are part of the wire
 * contract with every A2A client: never change one without a new version of the extension.
 */
export const TASK_EXTENSION_URI = 'https://madarauchiha-314.github.io/tiny-harness/a2a/ext/task/v1';
export const TASK_SCHEMA_ID =
  'https://madarauchiha-314.github.io/tiny-harness/a2a/ext/task/v1/schema.json';

/** `Task.metadata` key holding the task extension (goal, participants, plan, ...). */
export const TASK_METADATA_KEY = 'io.github.madarauchiha-314.tiny-harness/task';

/**
 * `Task.metadata` key holding the status extension (the sub-state while parked). The reference
 * never published this string; it is ours, chosen by analogy with the task key.
 */
export const STATUS_METADATA_KEY = 'io.github.madarauchiha-314.tiny-harness/status';

/**
 * `Task.metadata` key holding the task's model usage and cost so far (ours): what a participant
 * or an auditor reads through GetTask.
 */
export const USAGE_METADATA_KEY = 'io.github.madarauchiha-314.tiny-harness/usage';

export const TASK_MEDIA_TYPE = 'application/vnd.tiny-harness.task+json';

/** Media type of the data part that carries an event envelope in a message. */
export const EVENT_MEDIA_TYPE = 'application/vnd.tiny-harness.event+json';

/** The agent's own participant id when configuration names none. */
export const DEFAULT_AGENT_ID = 'tiny-harness';

/** The task extension's method that forks a task from a point in its history (docs/a2a/fork.md). */
export const FORK_JSON_RPC_METHOD = 'tiny-harness/ForkTask';
/** The same on HTTP+JSON: `POST /tasks/{id}:fork`. */
export const FORK_REST_SUFFIX = ':fork';

/** The task extension's time-travel read: the task as it was at a point in its history. */
export const TASK_AT_JSON_RPC_METHOD = 'tiny-harness/GetTaskAt';
/** The same on HTTP+JSON: `GET /tasks/{id}:at`. */
export const TASK_AT_REST_SUFFIX = ':at';
