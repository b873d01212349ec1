/** A scripted answer of a fake provider server: a JSON body, or raw text; either after an optional delay. */
export type FakeReply =
  | { status?: number; json: unknown; headers?: Record<string, string>; delayMs?: number }
  | { status?: number; raw: string; contentType?: string; delayMs?: number };

/** What an HTTP/1.1 or HTTP/2 (compatibility API) response offers the fakes. */
interface ReplyTarget {
  writeHead(status: number, headers: Record<string, string>): unknown;
  end(body: string): unknown;
}

/**
 * Sends `reply` on `response`, after its delay if it has one (a pending timer is kept in
 * `timers` so the fake can clear it on close). `gone` says the client has left: nothing is sent.
 */
export const sendFakeReply = (
  response: ReplyTarget,
  reply: FakeReply,
  options: { timers: Set<NodeJS.Timeout>; gone: () => boolean }
): void => {
  const send = () => {
    if (options.gone()) return;
    if ('json' in reply) {
      response.writeHead(reply.status ?? 200, {
        'content-type': 'application/json',
        ...reply.headers,
      });
      response.end(JSON.stringify(reply.json));
    } else {
      response.writeHead(reply.status ?? 200, {
        'content-type': reply.contentType ?? 'application/json',
      });
      response.end(reply.raw);
    }
  };
  if (reply.delayMs === undefined) {
    send();
    return;
  }
  const timer = setTimeout(() => {
    options.timers.delete(timer);
    send();
  }, reply.delayMs);
  options.timers.add(timer);
};
