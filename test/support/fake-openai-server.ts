import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local HTTP server that speaks the OpenAI wire format (`POST /v1/responses`,
 * `POST /v1/chat/completions`): it records every request and answers from a queue of scripted
 * replies, in order. Adapter tests and end-to-end tests point a real SDK client at it.
 */

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body (the raw text when it is not JSON). */
  body: unknown;
}

export type ScriptedReply = {
  /** Default 200. */
  status?: number;
  /** Wait this long first (past a client's timeout, the client has gone by then). */
  delayMs?: number;
} & ({ json: unknown } | { raw: string; contentType?: string });

export interface FakeOpenAiServer {
  /** The base URL clients take: `http://127.0.0.1:<port>/v1`. */
  url: string;
  requests: RecordedRequest[];
  /** Queues replies; each request takes the next one. */
  reply(...replies: ScriptedReply[]): void;
  close(): Promise<void>;
}

const PATHS = new Set(['/v1/responses', '/v1/chat/completions']);

const errorJson = (message: string, type = 'invalid_request_error') => ({
  error: { message, type, param: null, code: null },
});

/** An error reply in OpenAI's shape: `{ error: { message, type, param, code } }`. */
export const errorReply = (status: number, message: string, type?: string): ScriptedReply => ({
  status,
  json: errorJson(message, type),
});

const write = (res: ServerResponse, reply: ScriptedReply) => {
  if (res.destroyed) return; // the client timed out and hung up
  const [contentType, text] =
    'json' in reply
      ? ['application/json', JSON.stringify(reply.json)]
      : [reply.contentType ?? 'application/json', reply.raw];
  res.writeHead(reply.status ?? 200, { 'content-type': contentType });
  res.end(text);
};

const parse = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

export const startFakeOpenAiServer = async (): Promise<FakeOpenAiServer> => {
  const requests: RecordedRequest[] = [];
  const queue: ScriptedReply[] = [];
  const timers = new Set<NodeJS.Timeout>();

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0] ?? '';
      requests.push({
        method: req.method ?? '',
        path,
        headers: req.headers,
        body: parse(Buffer.concat(chunks).toString('utf8')),
      });
      if (req.method !== 'POST' || !PATHS.has(path)) {
        write(res, errorReply(404, `fake server: no route ${req.method} ${path}`));
        return;
      }
      // Not retryable (418): a test that runs out of script fails at once, not after retries.
      const reply = queue.shift() ?? errorReply(418, 'fake server: no scripted reply left');
      if (!reply.delayMs) {
        write(res, reply);
        return;
      }
      const timer = setTimeout(() => {
        timers.delete(timer);
        write(res, reply);
      }, reply.delayMs);
      timers.add(timer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    reply: (...replies) => {
      queue.push(...replies);
    },
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};

// ---- Wire bodies ------------------------------------------------------------------------------

export interface WireCall {
  id: string;
  /** The name as the model sends it (already encoded). */
  name: string;
  arguments: unknown;
}

export interface WireUsage {
  input: number;
  cached?: number;
  output: number;
}

const argumentsText = (value: unknown) =>
  typeof value === 'string' ? value : JSON.stringify(value);

/** A `POST /v1/responses` success body. */
export const responsesBody = (options: {
  text?: string;
  calls?: WireCall[];
  /** Adds a reasoning item (summary text) before the answer, as reasoning models do. */
  reasoning?: string;
  refusal?: string;
  incomplete?: 'max_output_tokens' | 'content_filter';
  usage?: WireUsage;
  model?: string;
}): ScriptedReply => {
  const output: unknown[] = [];
  if (options.reasoning !== undefined) {
    output.push({
      type: 'reasoning',
      id: 'rs_1',
      summary: [{ type: 'summary_text', text: options.reasoning }],
    });
  }
  const content: unknown[] = [];
  if (options.text !== undefined) {
    content.push({ type: 'output_text', text: options.text, annotations: [] });
  }
  if (options.refusal !== undefined) content.push({ type: 'refusal', refusal: options.refusal });
  if (content.length > 0) {
    output.push({ type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content });
  }
  for (const call of options.calls ?? []) {
    output.push({
      type: 'function_call',
      id: `fc_${call.id}`,
      call_id: call.id,
      name: call.name,
      arguments: argumentsText(call.arguments),
      status: 'completed',
    });
  }
  const usage = options.usage ?? { input: 100, output: 10 };
  return {
    json: {
      id: 'resp_1',
      object: 'response',
      created_at: 1_700_000_000,
      model: options.model ?? 'gpt-test',
      status: options.incomplete === undefined ? 'completed' : 'incomplete',
      incomplete_details: options.incomplete === undefined ? null : { reason: options.incomplete },
      output,
      usage: {
        input_tokens: usage.input,
        input_tokens_details: { cached_tokens: usage.cached ?? 0 },
        output_tokens: usage.output,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: usage.input + usage.output,
      },
    },
  };
};

/** A `POST /v1/chat/completions` success body. */
export const chatBody = (options: {
  text?: string;
  calls?: WireCall[];
  refusal?: string;
  finishReason?: 'stop' | 'length' | 'tool_calls' | 'content_filter';
  usage?: WireUsage;
  model?: string;
}): ScriptedReply => {
  const calls = options.calls ?? [];
  const usage = options.usage ?? { input: 100, output: 10 };
  return {
    json: {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: options.model ?? 'local-model',
      choices: [
        {
          index: 0,
          finish_reason: options.finishReason ?? (calls.length > 0 ? 'tool_calls' : 'stop'),
          message: {
            role: 'assistant',
            content: options.text ?? null,
            refusal: options.refusal ?? null,
            ...(calls.length > 0 && {
              tool_calls: calls.map((call) => ({
                id: call.id,
                type: 'function',
                function: { name: call.name, arguments: argumentsText(call.arguments) },
              })),
            }),
          },
        },
      ],
      usage: {
        prompt_tokens: usage.input,
        completion_tokens: usage.output,
        total_tokens: usage.input + usage.output,
        prompt_tokens_details: { cached_tokens: usage.cached ?? 0 },
      },
    },
  };
};
