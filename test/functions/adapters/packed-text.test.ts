import { describe, expect, it } from 'vitest';
import { packedText, unpackedText } from '../../../functions/adapters/dynamodb/packed-text.js';

const answer = JSON.stringify({
  history: [{ seq: 4, kind: 'assistant_message', text: 'Here is the plan in detail. '.repeat(20) }],
  events: [{ kind: 'status_update', text: 'Here is the plan in detail. '.repeat(20) }],
});

describe('JSON text as an item holds it', () => {
  it('is packed when that stores fewer bytes, and reads back the same', () => {
    const packed = packedText(answer);
    expect(packed.startsWith('~')).toBe(true);
    expect(packed.length).toBeLessThan(answer.length / 3);
    expect(unpackedText(packed)).toBe(answer);
  });

  it('stays plain when small or when packing would not save bytes, and plain text reads as it is', () => {
    expect(packedText('{"a":1}')).toBe('{"a":1}');
    // Random text does not deflate: it is kept plain.
    const noise = JSON.stringify(
      Array.from({ length: 300 }, (_, index) => ((index * 2654435761) % 2 ** 32).toString(36))
    );
    const kept = packedText(noise);
    expect(kept.length).toBeLessThanOrEqual(Buffer.byteLength(noise));
    expect(unpackedText(kept)).toBe(noise);
    expect(unpackedText(answer)).toBe(answer);
  });

  it('counts bytes, not characters: text in a wide script is packed by what it stores', () => {
    const wide = JSON.stringify({ text: 'é日本語'.repeat(200) });
    const packed = packedText(wide);
    expect(packed.length).toBeLessThan(Buffer.byteLength(wide));
    expect(unpackedText(packed)).toBe(wide);
  });
});
