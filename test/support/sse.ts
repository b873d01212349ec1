/**
 * A Server-Sent Events reader written from the HTML Living Standard's event-stream rules, with no
 * SDK code: the tests' independent view of what goes over the wire. Comments (`: ...`) are kept
 * as `comment` entries so keep-alives can be asserted.
 */

export interface SseFrame {
  /** `message` unless an `event:` field named it. */
  event: string;
  data: string;
  id?: string;
}

export type SseEntry = { kind: 'frame'; frame: SseFrame } | { kind: 'comment'; text: string };

/** Splits text into the entries of its complete blocks; returns them with the unfinished rest. */
export const parseSse = (text: string): { entries: SseEntry[]; rest: string } => {
  const blocks = text.replace(/\r\n|\r/g, '\n').split('\n\n');
  const rest = blocks.pop() ?? '';
  const entries: SseEntry[] = [];
  for (const block of blocks) {
    let event = 'message';
    const data: string[] = [];
    let id: string | undefined;
    for (const line of block.split('\n')) {
      if (line === '') continue;
      if (line.startsWith(':')) {
        entries.push({ kind: 'comment', text: line.slice(1).trim() });
        continue;
      }
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') event = value;
      if (field === 'data') data.push(value);
      if (field === 'id') id = value;
    }
    if (data.length > 0) {
      entries.push({
        kind: 'frame',
        frame: { event, data: data.join('\n'), ...(id === undefined ? {} : { id }) },
      });
    }
  }
  return { entries, rest };
};

/** Every entry of an event stream, read to its end. */
export async function* readSse(body: AsyncIterable<Uint8Array | string>): AsyncGenerator<SseEntry> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body) {
    buffer += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    const { entries, rest } = parseSse(buffer);
    buffer = rest;
    yield* entries;
  }
  const { entries } = parseSse(`${buffer}\n\n`);
  yield* entries;
}
