import OpenAI, { APIConnectionError } from 'openai';
import * as z from 'zod';
import { ModelFailedError, ModelRetryableError } from '../../core/errors.js';
import { toModelError } from './provider-errors.js';
import type { ProviderModelOptions } from './provider-options.js';

const OFFICIAL_BASE_URL = 'https://api.openai.com/v1';
const OFFICIAL_HOST = 'api.openai.com';
/** The SDK refuses to start without a key; a keyless compatible server ignores this one. */
const KEYLESS_PLACEHOLDER = 'none';

/** One configured OpenAI (or OpenAI-compatible) endpoint, shared by both adapters. */
export interface OpenAiEndpoint {
  readonly client: OpenAI;
  /** The label errors carry (`openai`, `openai-chat`). */
  readonly provider: string;
  /** OpenAI's own API, not a compatible server: it takes fields a local server may reject. */
  readonly official: boolean;
  readonly apiKey: string | undefined;
}

const hostOf = (provider: string, baseUrl: string): string => {
  try {
    return new URL(baseUrl).hostname;
  } catch {
    throw new Error(`${provider}: the model base URL ${JSON.stringify(baseUrl)} is not a URL`);
  }
};

/**
 * The SDK client, pinned to one host. The base URL is always passed explicitly so
 * `OPENAI_BASE_URL` can never redirect the calls; SDK retries are off because the state machine
 * retries (with backoff, visibly); a compatible server never receives the OpenAI organization or
 * project ids the environment may hold. Fails at construction, not at the first turn, when
 * there is neither a key nor a base URL.
 */
export const openAiEndpoint = (provider: string, options: ProviderModelOptions): OpenAiEndpoint => {
  const baseURL = options.baseUrl ?? OFFICIAL_BASE_URL;
  const official = hostOf(provider, baseURL) === OFFICIAL_HOST;
  const apiKey = options.apiKey || undefined;
  if (apiKey === undefined && official) {
    throw new Error(
      `${provider}: no API key; set OPENAI_API_KEY, or configure a base URL for a keyless OpenAI-compatible server`
    );
  }
  const client = new OpenAI({
    apiKey: apiKey ?? KEYLESS_PLACEHOLDER,
    adminAPIKey: null,
    baseURL,
    timeout: options.timeoutMs,
    maxRetries: 0,
    ...(official ? {} : { organization: null, project: null }),
  });
  return { client, provider, official, apiKey };
};

/** The typed error, with the key scrubbed should a server echo it back (and then no cause). */
const scrubbed = (endpoint: OpenAiEndpoint, error: Error): Error => {
  const key = endpoint.apiKey;
  if (key === undefined || !error.message.includes(key)) return error;
  const message = error.message.replaceAll(key, '[redacted]');
  return error instanceof ModelRetryableError
    ? new ModelRetryableError(message)
    : new ModelFailedError(message);
};

const sdkFailure = (endpoint: OpenAiEndpoint, error: unknown): Error => {
  // The SDK's timeout reads "Request timed out." and its connection failure carries no status:
  // both never reached an answer, so they are transient whatever their wording.
  if (error instanceof APIConnectionError) {
    return new ModelRetryableError(`${endpoint.provider}: ${error.message}`, { cause: error });
  }
  return toModelError(endpoint.provider, error);
};

/** A 2xx whose body is not what the API promises: not retried (the same call would repeat it). */
const unparseable = (endpoint: OpenAiEndpoint, status: number, why: string) =>
  new ModelFailedError(
    `${endpoint.provider} ${status}: unparseable response: ${why.slice(0, 300)}`
  );

const readBody = async (endpoint: OpenAiEndpoint, response: Response): Promise<unknown> => {
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    // The connection dropped after the headers: as transient as one that never connected.
    throw new ModelRetryableError(
      `${endpoint.provider} ${response.status}: the response body was cut off: ${(error as Error).message}`,
      { cause: error }
    );
  }
  try {
    return JSON.parse(text);
  } catch {
    throw unparseable(endpoint, response.status, `not JSON: ${JSON.stringify(text.slice(0, 100))}`);
  }
};

const sendUnscrubbed = async <T>(
  endpoint: OpenAiEndpoint,
  call: () => { asResponse(): Promise<Response> },
  schema: z.ZodType<T>
): Promise<T> => {
  let response: Response;
  try {
    response = await call().asResponse();
  } catch (error) {
    throw sdkFailure(endpoint, error);
  }
  const parsed = schema.safeParse(await readBody(endpoint, response));
  if (!parsed.success) {
    throw unparseable(endpoint, response.status, z.prettifyError(parsed.error));
  }
  return parsed.data;
};

/**
 * Sends one SDK call and returns its body validated by `schema`. The raw response is read here
 * (not by the SDK's parser) so that a 2xx with garbage, or without the fields the adapter reads,
 * is a `ModelFailedError` naming the status rather than a TypeError from deep inside the SDK.
 * Every failure is the port's typed error, and none carries the API key.
 */
export const send = async <T>(
  endpoint: OpenAiEndpoint,
  call: () => { asResponse(): Promise<Response> },
  schema: z.ZodType<T>
): Promise<T> => {
  try {
    return await sendUnscrubbed(endpoint, call, schema);
  } catch (error) {
    throw scrubbed(endpoint, error as Error);
  }
};
