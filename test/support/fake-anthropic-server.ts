import {
  createServer,
  type IncomingHttpHeaders,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { type FakeReply, sendFakeReply } from './fake-reply.js';

/** One request the fake received, its JSON body parsed. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary wire JSON.
  body: any;
}

export type { FakeReply };

export interface AnthropicToolUse {
  id: string;
  name: string;
  input: Record<string, unknown>;
}

/** A Messages API success body, as the real API returns it. */
export const anthropicMessage = (options: {
  text?: string;
  toolUses?: AnthropicToolUse[];
  thinking?: string;
  stopReason?: string;
  model?: string;
  usage?: { input?: number; output?: number; cacheRead?: number; cacheWrite?: number };
}): FakeReply => {
  const content: unknown[] = [];
  if (options.thinking !== undefined) {
    content.push({ type: 'thinking', thinking: options.thinking, signature: 'c2lnbmF0dXJl' });
  }
  if (options.text !== undefined) content.push({ type: 'text', text: options.text });
  for (const use of options.toolUses ?? []) content.push({ type: 'tool_use', ...use });
  const usage = options.usage ?? {};
  return {
    json: {
      id: 'msg_01Fake',
      type: 'message',
      role: 'assistant',
      model: options.model ?? 'claude-sonnet-4-5',
      content,
      stop_reason: options.stopReason ?? (options.toolUses?.length ? 'tool_use' : 'end_turn'),
      stop_sequence: null,
      usage: {
        input_tokens: usage.input ?? 100,
        output_tokens: usage.output ?? 10,
        cache_read_input_tokens: usage.cacheRead ?? 0,
        cache_creation_input_tokens: usage.cacheWrite ?? 0,
        service_tier: 'standard',
      },
    },
  };
};

/** An error answer in the API's envelope (`{type: 'error', error: {type, message}}`). */
export const anthropicError = (status: number, type: string, message: string): FakeReply => ({
  status,
  json: { type: 'error', error: { type, message }, request_id: 'req_fake' },
  headers: { 'request-id': 'req_fake' },
});

/**
 * A local stand-in for the Anthropic Messages API: `POST /v1/messages` answered from a queue of
 * scripted replies, every request recorded. An empty queue answers 500 so a test notices.
 */
export class FakeAnthropicServer {
  readonly requests: RecordedRequest[] = [];
  readonly #server: Server;
  readonly #replies: FakeReply[] = [];
  readonly #timers = new Set<NodeJS.Timeout>();

  private constructor(server: Server) {
    this.#server = server;
  }

  static async start(): Promise<FakeAnthropicServer> {
    const server = createServer();
    const fake = new FakeAnthropicServer(server);
    server.on('request', (request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        fake.requests.push({
          method: request.method ?? '',
          path: request.url ?? '',
          headers: request.headers,
          body: text === '' ? undefined : JSON.parse(text),
        });
        fake.#answer(request.method === 'POST' && request.url === '/v1/messages', response);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  /** The base URL to configure (`http://127.0.0.1:<port>`). */
  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  reply(...replies: FakeReply[]): void {
    this.#replies.push(...replies);
  }

  async close(): Promise<void> {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #answer(known: boolean, response: ServerResponse): void {
    const reply = known
      ? (this.#replies.shift() ?? anthropicError(500, 'api_error', 'fake: no reply queued'))
      : anthropicError(404, 'not_found_error', 'fake: unknown route');
    sendFakeReply(response, reply, { timers: this.#timers, gone: () => response.destroyed });
  }
}
