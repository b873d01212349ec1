/**
 * How many bytes `text` takes in UTF-8 (pure; the core has no TextEncoder): what DynamoDB counts
 * of a string toward its item limit. A lone surrogate counts as the three bytes of its U+FFFD.
 */
export const utf8Bytes = (text: string): number => {
  let bytes = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && index + 1 < text.length) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        index++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
};

/** How many bytes a value's JSON takes in UTF-8 (what an item holding it counts toward its limit). */
export const jsonBytes = (value: unknown): number => utf8Bytes(JSON.stringify(value) ?? '');
