/**
 * JSON text as an item holds it where it is large and written often (a task record's task and
 * loop state, a commit's log item): deflated and in base64 when that is shorter, since every
 * write is billed by the kilobyte it stores and a model's answer appears in such an item more
 * than once (the transcript entry, the status message, the model call's record). Valid JSON text
 * never begins with `~`, so a reader tells packed text from plain, and reads an item written
 * before packing as it was.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';

const PACKED = '~';

/** Below this many bytes, packing does not pay for its own cost. */
const PACK_FROM_BYTES = 300;

/**
 * A smaller compressor state than zlib's default: a third of the time for a record or a log item
 * (the state is set up for every call), with the same output at their sizes.
 */
const DEFLATE = { level: 6, memLevel: 5 } as const;

/** `json` packed, when that stores fewer bytes; else `json` itself. */
export const packedText = (json: string): string => {
  const bytes = Buffer.byteLength(json, 'utf8');
  if (bytes < PACK_FROM_BYTES) return json;
  const packed = `${PACKED}${deflateRawSync(json, DEFLATE).toString('base64')}`;
  return packed.length < bytes ? packed : json;
};

/** Text an item holds, as JSON text: packed text unpacked, plain text as it is. */
export const unpackedText = (text: string): string =>
  text.startsWith(PACKED)
    ? inflateRawSync(Buffer.from(text.slice(1), 'base64')).toString('utf8')
    : text;
