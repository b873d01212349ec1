import type { FuzzTarget } from './target.js';

export interface HttpTargetOptions {
  /** The A2A base URL, `http://127.0.0.1:8080`. */
  url: string;
  token: string;
  /** A second caller's token, for a task the first is not a participant of. */
  otherToken?: string | undefined;
  /** How long a stream is read before the fuzzer stops reading it. */
  streamMs?: number;
}

const checkToken = async (url: string, token: string): Promise<void> => {
  const response = await fetch(`${url}/tasks?pageSize=1`, {
    headers: { Authorization: `Bearer ${token}`, 'A2A-Version': '1.0' },
  });
  if (response.status === 401) throw new Error(`the target refuses the token (${url})`);
};

/** Reads a response's text until it ends or `ms` pass (a stream may follow a task for minutes). */
const readFor = async (response: Response, ms: number): Promise<string> => {
  const reader = response.body?.getReader();
  if (reader === undefined) return '';
  const decoder = new TextDecoder();
  let text = '';
  const deadline = Date.now() + ms;
  const timer = setTimeout(() => void reader.cancel().catch(() => undefined), ms);
  try {
    while (Date.now() < deadline) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    // Cancelled at the deadline: what was read is judged.
  } finally {
    clearTimeout(timer);
  }
  // Only whole frames are judged: a frame cut at the deadline is not the server's fault.
  const end = text.lastIndexOf('\n\n');
  return end === -1 ? '' : text.slice(0, end + 2);
};

/** A running stack (`npm start`, or a deployed stage) over HTTP. */
export const httpTarget = async (options: HttpTargetOptions): Promise<FuzzTarget> => {
  const url = options.url.replace(/\/$/, '');
  await checkToken(url, options.token);
  const streamMs = options.streamMs ?? 1_000;
  return {
    callers: { caller: 'caller', other: options.otherToken === undefined ? undefined : 'other' },
    servesAudit: true,
    async send(request, as = 'caller') {
      const target = new URL(`${url}${request.path}`);
      for (const [name, value] of Object.entries(request.query ?? {})) {
        if (request.multiQuery?.[name] === undefined) target.searchParams.set(name, value);
      }
      for (const [name, values] of Object.entries(request.multiQuery ?? {})) {
        for (const value of values) target.searchParams.append(name, value);
      }
      const token = as === 'other' ? options.otherToken : options.token;
      const response = await fetch(target, {
        method: request.method,
        headers: { ...request.headers, Authorization: `Bearer ${token}` },
        ...(request.body === null || ['GET', 'HEAD'].includes(request.method)
          ? {}
          : { body: request.body }),
      });
      const streamed = (response.headers.get('content-type') ?? '').startsWith('text/event-stream');
      const headers: Record<string, string> = {};
      response.headers.forEach((value, name) => {
        headers[name] = value;
      });
      return {
        status: response.status,
        headers,
        body: streamed ? await readFor(response, streamMs) : await response.text(),
        streamed,
      };
    },
    close: async () => undefined,
  };
};
