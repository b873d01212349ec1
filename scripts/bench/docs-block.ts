import { readFileSync, writeFileSync } from 'node:fs';

export const BLOCK_BEGIN = '<!-- bench:begin -->';
export const BLOCK_END = '<!-- bench:end -->';

/**
 * The text with what lies between its one pair of bench markers replaced by `block` (the markers
 * stay). Throws, changing nothing, when the markers are missing, repeated or out of order.
 */
export const replaceMarkedBlock = (text: string, block: string): string => {
  const begin = text.indexOf(BLOCK_BEGIN);
  const end = text.indexOf(BLOCK_END);
  if (begin < 0 || end < 0) throw new Error(`no ${BLOCK_BEGIN} … ${BLOCK_END} block`);
  if (text.indexOf(BLOCK_BEGIN, begin + 1) >= 0 || text.indexOf(BLOCK_END, end + 1) >= 0) {
    throw new Error(`more than one ${BLOCK_BEGIN} … ${BLOCK_END} block`);
  }
  if (end < begin) throw new Error(`${BLOCK_END} comes before ${BLOCK_BEGIN}`);
  return `${text.slice(0, begin + BLOCK_BEGIN.length)}\n\n${block.trim()}\n\n${text.slice(end)}`;
};

/** What lies between the markers, trimmed. */
export const markedBlock = (text: string): string => {
  const begin = text.indexOf(BLOCK_BEGIN);
  const end = text.indexOf(BLOCK_END);
  if (begin < 0 || end < begin) throw new Error(`no ${BLOCK_BEGIN} … ${BLOCK_END} block`);
  return text.slice(begin + BLOCK_BEGIN.length, end).trim();
};

/** Rewrites each file's marked block; all are checked before any is written. */
export const writeMarkedBlocks = (blocks: ReadonlyArray<{ path: string; block: string }>): void => {
  const next = blocks.map(({ path, block }) => ({
    path,
    text: replaceMarkedBlock(readFileSync(path, 'utf8'), block),
  }));
  for (const { path, text } of next) writeFileSync(path, text);
};
