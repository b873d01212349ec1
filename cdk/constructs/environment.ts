/**
 * The environment variables the stack sets on every Lambda; `functions/composition/
 * runtime-config.ts` reads (and validates) the same names at cold start.
 */
export const ENV = {
  table: 'TINY_HARNESS_TABLE',
  stateMachineArn: 'TINY_HARNESS_STATE_MACHINE_ARN',
  logLevel: 'TINY_HARNESS_LOG_LEVEL',
  modelProvider: 'TINY_HARNESS_MODEL_PROVIDER',
  model: 'TINY_HARNESS_MODEL',
  turnsPerGeneration: 'TINY_HARNESS_TURNS_PER_GENERATION',
  /** Reminders of unmet acceptance criteria before a delegated task parks for review. */
  criteriaReminders: 'TINY_HARNESS_CRITERIA_REMINDERS',
  /** The budget a new task starts with, by task type (JSON). */
  defaultBudget: 'TINY_HARNESS_DEFAULT_BUDGET',
  stage: 'TINY_HARNESS_STAGE',
  modelBaseUrl: 'TINY_HARNESS_MODEL_BASE_URL',
  modelReasoning: 'TINY_HARNESS_MODEL_REASONING',
  modelApiKeySecret: 'TINY_HARNESS_MODEL_API_KEY_SECRET',
  modelPrices: 'TINY_HARNESS_MODEL_PRICES',
  /** The public base URL the agent card advertises (A2A function only). */
  baseUrl: 'TINY_HARNESS_BASE_URL',
  /** `cognito` in the cloud: the caller is the authorizer's verified claims (A2A function only). */
  authMode: 'TINY_HARNESS_AUTH_MODE',
  /** The user pool's OAuth 2.0 token endpoint, for the agent card (A2A function only). */
  oauthTokenUrl: 'TINY_HARNESS_OAUTH_TOKEN_URL',
  /** Server-Sent Event streams one caller may hold open at once (A2A function only). */
  streamsPerCaller: 'TINY_HARNESS_STREAMS_PER_CALLER',
  /** The lifecycle of a task a client starts (conversation or delegated). */
  taskLifecycle: 'TINY_HARNESS_TASK_LIFECYCLE',
  /** The web renderer's origin, whose pages may read the A2A answers (A2A function only). */
  webOrigin: 'TINY_HARNESS_WEB_ORIGIN',
  /** The agent card's skills, JSON (A2A function only). */
  agentSkills: 'TINY_HARNESS_AGENT_SKILLS',
  /** The KMS key that seals push-notification tokens and credentials. */
  pushKmsKeyId: 'TINY_HARNESS_PUSH_KMS_KEY_ID',
  /** The directory of remote agents, JSON (the functions that call them). */
  remoteAgents: 'TINY_HARNESS_REMOTE_AGENTS',
  /** The MCP servers whose tools the agent may call, JSON (the turn step only). */
  mcpServers: 'TINY_HARNESS_MCP_SERVERS',
  /** The follow state machine of remote children (the functions that start followers). */
  followStateMachineArn: 'TINY_HARNESS_FOLLOW_STATE_MACHINE_ARN',
} as const;
