import {
  createServer,
  type Http2Server,
  type Http2ServerResponse,
  type Http2Session,
  type IncomingHttpHeaders,
} from 'node:http2';
import type { AddressInfo } from 'node:net';
import { type FakeReply, sendFakeReply } from './fake-reply.js';

/** One request the fake received: the model id decoded from the path, the JSON body parsed. */
export interface RecordedConverseRequest {
  method: string;
  path: string;
  modelId: string | undefined;
  headers: IncomingHttpHeaders;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary wire JSON.
  body: any;
}

export type FakeConverseReply = FakeReply;

export interface ConverseToolUse {
  toolUseId: string;
  name: string;
  input: Record<string, unknown>;
}

/** A Converse success body, as the real service returns it. */
export const converseOutput = (options: {
  text?: string;
  toolUses?: ConverseToolUse[];
  reasoning?: string;
  stopReason?: string;
  usage?: { input?: number; output?: number; cacheRead?: number; cacheWrite?: number };
}): FakeConverseReply => {
  const content: unknown[] = [];
  if (options.reasoning !== undefined) {
    content.push({
      reasoningContent: { reasoningText: { text: options.reasoning, signature: 'c2ln' } },
    });
  }
  if (options.text !== undefined) content.push({ text: options.text });
  for (const toolUse of options.toolUses ?? []) content.push({ toolUse });
  const usage = options.usage ?? {};
  const input = usage.input ?? 100;
  const output = usage.output ?? 10;
  return {
    json: {
      output: { message: { role: 'assistant', content } },
      stopReason: options.stopReason ?? (options.toolUses?.length ? 'tool_use' : 'end_turn'),
      usage: {
        inputTokens: input,
        outputTokens: output,
        totalTokens: input + output + (usage.cacheRead ?? 0) + (usage.cacheWrite ?? 0),
        ...(usage.cacheRead === undefined ? {} : { cacheReadInputTokens: usage.cacheRead }),
        ...(usage.cacheWrite === undefined ? {} : { cacheWriteInputTokens: usage.cacheWrite }),
      },
      metrics: { latencyMs: 42 },
    },
  };
};

/**
 * A Bedrock error as restJson1 carries it: the type in `x-amzn-errortype` (what the SDK maps to
 * its typed exception), the message in the body.
 */
export const bedrockError = (status: number, type: string, message: string): FakeConverseReply => ({
  status,
  json: { message },
  headers: {
    'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
    'x-amzn-requestid': 'fake-request-id',
  },
});

const CONVERSE_PATH = /^\/model\/([^/]+)\/converse$/;

/**
 * A local stand-in for Bedrock Runtime's Converse API over HTTP/2 cleartext (the SDK's Node
 * handler for Bedrock Runtime is HTTP/2): `POST /model/{modelId}/converse` answered from a queue
 * of scripted replies, every request recorded. SigV4 headers are kept, never verified. An empty
 * queue answers 500 so a test notices.
 */
export class FakeBedrockServer {
  readonly requests: RecordedConverseRequest[] = [];
  readonly #server: Http2Server;
  readonly #replies: FakeConverseReply[] = [];
  readonly #sessions = new Set<Http2Session>();
  readonly #timers = new Set<NodeJS.Timeout>();

  private constructor(server: Http2Server) {
    this.#server = server;
  }

  static async start(): Promise<FakeBedrockServer> {
    const server = createServer();
    const fake = new FakeBedrockServer(server);
    server.on('session', (session) => {
      fake.#sessions.add(session);
      session.on('close', () => fake.#sessions.delete(session));
    });
    server.on('request', (request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const path = request.url ?? '';
        const match = CONVERSE_PATH.exec(path);
        fake.requests.push({
          method: request.method,
          path,
          modelId: match?.[1] === undefined ? undefined : decodeURIComponent(match[1]),
          headers: request.headers,
          body: text === '' ? undefined : JSON.parse(text),
        });
        fake.#answer(request.method === 'POST' && match !== null, response);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  /** The endpoint to configure (`http://127.0.0.1:<port>`). */
  get endpoint(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  reply(...replies: FakeConverseReply[]): void {
    this.#replies.push(...replies);
  }

  async close(): Promise<void> {
    for (const timer of this.#timers) clearTimeout(timer);
    for (const session of this.#sessions) session.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #answer(known: boolean, response: Http2ServerResponse): void {
    const reply = known
      ? (this.#replies.shift() ??
        bedrockError(500, 'InternalServerException', 'fake: no reply queued'))
      : bedrockError(404, 'UnknownOperationException', 'fake: unknown route');
    sendFakeReply(response, reply, {
      timers: this.#timers,
      gone: () => response.stream.destroyed || response.stream.closed,
    });
  }
}
