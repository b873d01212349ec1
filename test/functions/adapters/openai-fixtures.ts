import { createServer } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ProviderModelOptions } from '../../../functions/adapters/model/provider-options.js';
import { ModelFailedError, ModelRetryableError } from '../../../functions/core/errors.js';
import type { Model, ModelRequest } from '../../../functions/core/ports/model.js';
import {
  errorReply,
  type FakeOpenAiServer,
  type ScriptedReply,
  startFakeOpenAiServer,
} from '../../support/fake-openai-server.js';

/** Shared by the two OpenAI adapter suites: the request, the options, the failure contract. */

export const API_KEY = 'sk-test-do-not-leak-0123456789';

export const TOOLS: ModelRequest['tools'] = [
  {
    name: 'create_plan',
    description: 'Create the plan.',
    parameters: { type: 'object', properties: { steps: { type: 'array' } }, required: ['steps'] },
  },
  {
    name: 'plugin.search',
    description: 'Search the index.',
    parameters: { type: 'object', properties: { query: { type: 'string' } } },
  },
];

export const baseRequest = (overrides: Partial<ModelRequest> = {}): ModelRequest => ({
  instructions: 'You are the test agent.',
  input: [{ type: 'message', role: 'user', text: 'find the report' }],
  tools: TOOLS,
  cacheKey: 'task-123',
  maxOutputTokens: 2_000,
  ...overrides,
});

export const adapterOptions = (
  baseUrl: string | undefined,
  overrides: Partial<ProviderModelOptions> = {}
): ProviderModelOptions => ({
  model: 'configured-model',
  baseUrl,
  apiKey: API_KEY,
  timeoutMs: 2_000,
  supportsReasoning: true,
  ...overrides,
});

/** A base URL on a port nothing listens on (bound, then released). */
export const closedPortUrl = async (): Promise<string> => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/v1`;
};

/**
 * Starts the fake server for a suite, and for every test points the environment somewhere else:
 * `OPENAI_BASE_URL` at a second fake (which must never be called) and OpenAI org/project ids
 * (which must never reach a compatible server).
 */
export interface FakeServers {
  main: FakeOpenAiServer;
  foreign: FakeOpenAiServer;
}

export const fakeServers = (): FakeServers => {
  const servers = {} as FakeServers;
  beforeAll(async () => {
    servers.main = await startFakeOpenAiServer();
    servers.foreign = await startFakeOpenAiServer();
  });
  afterAll(async () => {
    await servers.main?.close();
    await servers.foreign?.close();
  });
  beforeEach(() => {
    servers.main.requests.length = 0;
    servers.foreign.requests.length = 0;
    vi.stubEnv('OPENAI_BASE_URL', servers.foreign.url);
    vi.stubEnv('OPENAI_ORG_ID', 'org-from-env');
    vi.stubEnv('OPENAI_PROJECT_ID', 'proj-from-env');
  });
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.unstubAllGlobals();
    expect(servers.foreign.requests).toEqual([]);
  });
  return servers;
};

/**
 * Routes calls to https://api.openai.com/v1 to the fake server (a stubbed global fetch, taken by
 * clients built afterwards) and records the URLs the SDK asked for.
 */
export const routeOfficialHostTo = (server: FakeOpenAiServer): string[] => {
  const urls: string[] = [];
  const realFetch = globalThis.fetch;
  vi.stubGlobal('fetch', (input: string | URL | Request, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    urls.push(url);
    return realFetch(url.replace('https://api.openai.com/v1', server.url), init);
  });
  return urls;
};

const failure = async (promise: Promise<unknown>): Promise<Error> => {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the call to fail');
};

/**
 * The failure contract both adapters honour: what is retried (by the state machine: the SDK
 * makes one call only), what fails the task, and that the key is never in a reason.
 */
export const describeFailures = (
  servers: FakeServers,
  make: (options: ProviderModelOptions) => Model,
  success: ScriptedReply
) => {
  const invoke = (
    reply: ScriptedReply | undefined,
    overrides: Partial<ProviderModelOptions> = {}
  ) => {
    if (reply !== undefined) servers.main.reply(reply);
    return failure(make(adapterOptions(servers.main.url, overrides)).invoke(baseRequest()));
  };

  describe('failures', () => {
    it.each([429, 500, 503])('%i is retryable, after exactly one HTTP call', async (status) => {
      const error = await invoke(errorReply(status, 'slow down or try later', 'server_error'));
      expect(error).toBeInstanceOf(ModelRetryableError);
      expect(error.message).toContain(`${status}`);
      expect(servers.main.requests).toHaveLength(1);
    });

    it('a reply slower than the timeout is retryable', async () => {
      const error = await invoke({ ...success, delayMs: 1_500 }, { timeoutMs: 200 });
      expect(error).toBeInstanceOf(ModelRetryableError);
      expect(error.message).toMatch(/timed out/i);
    });

    it('a refused connection (closed port) is retryable', async () => {
      const error = await failure(
        make(adapterOptions(await closedPortUrl())).invoke(baseRequest())
      );
      expect(error).toBeInstanceOf(ModelRetryableError);
      expect(error.message).toMatch(/connection/i);
    });

    it.each([
      [400, "Invalid 'input': bad item"],
      [401, `Incorrect API key provided: ${API_KEY}`],
      [404, 'The model `nope` does not exist'],
    ])('%i fails the task with a readable reason and no key in it', async (status, message) => {
      const error = await invoke(errorReply(status, message));
      expect(error).toBeInstanceOf(ModelFailedError);
      expect(error.message).toMatch(new RegExp(`^openai(-chat)? ${status}: `));
      expect(error.message).toContain(message.replace(API_KEY, '[redacted]'));
      expect(error.message).not.toContain(API_KEY);
      expect(servers.main.requests).toHaveLength(1);
    });

    it.each([
      ['JSON garbage', { raw: '{"id": "resp_1", "outp' }],
      ['a body without the answer', { json: { id: 'x', object: 'response' } }],
      ['plain text', { raw: 'OK', contentType: 'text/plain' }],
    ])('a 200 with %s fails the task as unparseable', async (_, reply) => {
      const error = await invoke(reply);
      expect(error).toBeInstanceOf(ModelFailedError);
      expect(error.message).toMatch(/^openai(-chat)? 200: unparseable response/);
    });

    it('a reasoning effort the model cannot honour is refused before any HTTP call', async () => {
      const model = make(adapterOptions(servers.main.url, { supportsReasoning: false }));
      const error = await failure(model.invoke(baseRequest({ reasoningEffort: 'high' })));
      expect(error).toBeInstanceOf(ModelFailedError);
      expect(error.message).toMatch(
        /configured-model does not support reasoning_effort=high; configure a reasoning model/
      );
      expect(servers.main.requests).toHaveLength(0);
    });
  });

  describe('configuration', () => {
    it('refuses to start with neither a key nor a base URL, naming what is missing', () => {
      expect(() => make(adapterOptions(undefined, { apiKey: undefined }))).toThrow(
        /no API key; set OPENAI_API_KEY, or configure a base URL/
      );
    });

    it('refuses a base URL that is not a URL', () => {
      expect(() => make(adapterOptions('not a url'))).toThrow(/"not a url" is not a URL/);
    });

    it('calls a keyless compatible server with a placeholder key', async () => {
      servers.main.reply(success);
      await make(adapterOptions(servers.main.url, { apiKey: undefined })).invoke(baseRequest());
      expect(servers.main.requests[0]?.headers.authorization).toBe('Bearer none');
    });

    it('sends the key, and no OpenAI org/project ids, to a compatible server (OPENAI_BASE_URL ignored)', async () => {
      servers.main.reply(success);
      await make(adapterOptions(servers.main.url)).invoke(baseRequest());
      const [request] = servers.main.requests;
      expect(request?.headers.authorization).toBe(`Bearer ${API_KEY}`);
      expect(request?.headers).not.toHaveProperty('openai-organization');
      expect(request?.headers).not.toHaveProperty('openai-project');
      // fakeServers() asserts after each test that the OPENAI_BASE_URL server saw nothing.
    });
  });
};
