/**
 * What every provider adapter is built from. The deployment chooses provider and model; a task's
 * own `model` (server-controlled, in `ModelRequest.model`) wins over `model` here.
 */
export interface ProviderModelOptions {
  /** The deployment's model id. */
  model: string;
  /** Only this base URL is ever called (an OpenAI-compatible server; a test's fake server). */
  baseUrl?: string | undefined;
  /** Never logged. Absent: keyless (allowed only with a base URL for OpenAI-compatible servers). */
  apiKey?: string | undefined;
  /** One request's time limit; past it the call fails as retryable. */
  timeoutMs: number;
  /** Whether the model honours a reasoning effort; if not, a task asking for one is refused. */
  supportsReasoning: boolean;
}

export interface BedrockModelOptions {
  model: string;
  region: string;
  /** A local endpoint (tests); in the cloud the regional endpoint and the Lambda role are used. */
  endpoint?: string | undefined;
  credentials?: { accessKeyId: string; secretAccessKey: string } | undefined;
  timeoutMs: number;
  supportsReasoning: boolean;
}
