import { describe, expect, it } from 'vitest';
import { utf8Bytes } from '../../functions/core/utf8-bytes.js';

describe('utf8Bytes', () => {
  it('counts as UTF-8 encodes: one to four bytes a character, three for a lone surrogate', () => {
    const samples = ['', 'plain', 'é', '€ and ¥', 'a😀b', '😀😀', '\ud83d', 'x\udc00y', '\ud83dx'];
    for (const text of samples) expect(utf8Bytes(text)).toBe(Buffer.byteLength(text, 'utf8'));
    expect(utf8Bytes('😀')).toBe(4);
  });
});
