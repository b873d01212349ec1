import type { Message } from '@a2a-js/sdk';
import { type Client, ClientFactory, JsonRpcTransportFactory } from '@a2a-js/sdk/client';

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
