import type { Message } from '@a2a-js/sdk';
import { type Client, ClientFactory, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { startStackProcess } from './stack-process.js';

/** The real SDK client over JSON-RPC, for a stack the fault suites run, with one bearer token. */
export const clientAt = (url: string, token: string): Promise<Client> =>
  new ClientFactory({
    transports: [
      new JsonRpcTransportFactory({
        fetchImpl: (input, init) => {
          const headers = new Headers(init?.headers);
          headers.set('Authorization', `Bearer ${token}`);
          return fetch(input, { ...init, headers });
        },
      }),
    ],
  }).createFromUrl(url);

/** A SendMessage request for `message`, to `taskId` (a new task when empty). */
export const sendRequest = (message: Message, taskId = '') => ({
  tenant: '',
  message: { ...message, taskId },
  configuration: undefined,
  metadata: undefined,
});

/**
 * `npm start` on the built-in demo model, for one caller (`alice`, with `token`), quiet but for
 * warnings: what the crash suites kill and start again on the same data directory.
 */
export const startDemoStack = (options: {
  dataDir: string;
  port: number;
  token: string;
  env?: Record<string, string>;
}) =>
  startStackProcess({
    dataDir: options.dataDir,
    port: options.port,
    env: {
      TINY_HARNESS_BEARER_TOKENS: `${options.token}=alice`,
      TINY_HARNESS_MODEL_PROVIDER: 'demo',
      TINY_HARNESS_LOG_LEVEL: 'warn',
      ...options.env,
    },
  });

/** `startDemoStack` whose MCP tools are the notes server at `notesUrl` (list and delete). */
export const startNotesStack = (options: {
  dataDir: string;
  port: number;
  token: string;
  notesUrl: string | undefined;
  env?: Record<string, string>;
}) =>
  startDemoStack({
    dataDir: options.dataDir,
    port: options.port,
    token: options.token,
    env: {
      TINY_HARNESS_MCP_SERVERS: JSON.stringify({
        notes: { url: options.notesUrl, tools: ['list_notes', 'delete_note'] },
      }),
      ...options.env,
    },
  });
