/**
 * The attribute names this harness sets. The GenAI semantic conventions are still incubating, so
 * their names are written here rather than imported from the package's incubating entry (whose
 * advice is to copy them), and every name a span carries is in one place for the docs to list.
 */
export const GEN_AI = {
  operation: 'gen_ai.operation.name',
  provider: 'gen_ai.provider.name',
  /** The older name of the provider, which Langfuse and Phoenix still read. */
  system: 'gen_ai.system',
  requestModel: 'gen_ai.request.model',
  maxTokens: 'gen_ai.request.max_tokens',
  responseModel: 'gen_ai.response.model',
  finishReasons: 'gen_ai.response.finish_reasons',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  cacheReadTokens: 'gen_ai.usage.cache_read.input_tokens',
  systemInstructions: 'gen_ai.system_instructions',
  inputMessages: 'gen_ai.input.messages',
  outputMessages: 'gen_ai.output.messages',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  toolType: 'gen_ai.tool.type',
  agentName: 'gen_ai.agent.name',
  agentId: 'gen_ai.agent.id',
  conversationId: 'gen_ai.conversation.id',
} as const;

/** What the conventions have no name for: ours, under one prefix. */
export const HARNESS = {
  reasoningEffort: 'tiny_harness.request.reasoning_effort',
  costUsd: 'tiny_harness.usage.cost_usd',
  latencyMs: 'tiny_harness.latency_ms',
  taskId: 'tiny_harness.task.id',
  contextId: 'tiny_harness.context.id',
  generation: 'tiny_harness.generation',
  turn: 'tiny_harness.turn',
  taskType: 'tiny_harness.task.type',
  parentTask: 'tiny_harness.task.parent_id',
  rootTask: 'tiny_harness.task.root_id',
  step: 'tiny_harness.step',
  route: 'tiny_harness.route',
  toolServer: 'tiny_harness.tool.server',
  toolOutcome: 'tiny_harness.tool.outcome',
  toolAttempt: 'tiny_harness.tool.attempt',
  a2aOperation: 'tiny_harness.a2a.operation',
  a2aStatus: 'tiny_harness.a2a.status',
  childId: 'tiny_harness.child.id',
  wake: 'tiny_harness.wake',
} as const;
