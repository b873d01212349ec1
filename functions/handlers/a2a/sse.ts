import { formatSSEErrorEvent, formatSSEEvent } from '@a2a-js/sdk';
import { A2aError, toA2aError } from '../../service/a2a-errors.js';
import type { StreamItem } from '../../service/task-stream.js';
import { streamResponseToJson } from './wire.js';

/** What a streaming operation answers: the items to send as Server-Sent Events. */
export class Streamed {
  readonly items: AsyncIterable<StreamItem>;
  constructor(items: AsyncIterable<StreamItem>) {
    this.items = items;
  }
}

/** How one binding wraps a stream's payloads and its error (JSON-RPC responses, or bare). */
export interface SseFraming {
  event(streamResponse: unknown): unknown;
  error(error: A2aError): unknown;
}

/** A comment line: clients ignore it, idle-timeout counters on the way see traffic. */
export const KEEP_ALIVE_FRAME = ': keep-alive\n\n';

/** The `Last-Event-ID` a reconnecting client sends (the `id:` of the last frame it read). */
export const lastEventIdOf = (value: string | undefined): number | undefined => {
  if (value === undefined || value.trim() === '') return undefined;
  if (!/^\d{1,15}$/.test(value.trim())) {
    throw new A2aError('InvalidParams', 'Last-Event-ID must be an event id this server sent');
  }
  return Number(value.trim());
};

/**
 * The SSE text of a stream (A2A §9.4.2, §11.7): each event a `data:` frame holding a
 * `StreamResponse`, with its event-log seq as the frame's `id:` so a client can resume with
 * `Last-Event-ID`; keep-alives as comments. A failure after the stream has started can no longer
 * change the HTTP status, so it is sent as an `error` event (the form the SDK's clients read) and
 * ends the stream.
 */
export async function* sseFrames(
  items: AsyncIterable<StreamItem>,
  framing: SseFraming,
  onError: (error: A2aError) => void
): AsyncGenerator<string> {
  try {
    for await (const item of items) {
      if (item.kind === 'keep-alive') {
        yield KEEP_ALIVE_FRAME;
        continue;
      }
      yield `id: ${item.seq}\n${formatSSEEvent(framing.event(streamResponseToJson(item.event)))}`;
    }
  } catch (error) {
    const failure = toA2aError(error);
    onError(failure);
    yield formatSSEErrorEvent(framing.error(failure));
  }
}
