import { describe, expect, it } from 'vitest';
import { paginate } from '../../../functions/local/stepfunctions/pagination.js';

const pages = (items: readonly number[], maxResults: number, reverse: boolean) => {
  const all: number[][] = [];
  let nextToken: string | undefined;
  do {
    const result = paginate(items, { maxResults, ...(nextToken ? { nextToken } : {}) }, reverse);
    all.push(result.page);
    nextToken = result.nextToken;
  } while (nextToken !== undefined);
  return all;
};

describe('paging as the Step Functions list operations do it', () => {
  const items = Array.from({ length: 10 }, (_, index) => index);

  it('pages in order, and newest first without reordering what it was given', () => {
    expect(pages(items, 4, false)).toEqual([
      [0, 1, 2, 3],
      [4, 5, 6, 7],
      [8, 9],
    ]);
    expect(pages(items, 4, true)).toEqual([
      [9, 8, 7, 6],
      [5, 4, 3, 2],
      [1, 0],
    ]);
    expect(items).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(paginate(items, { maxResults: 1 }, true)).toMatchObject({ page: [9] });
    expect(paginate([], { maxResults: 1 }, true)).toEqual({ page: [] });
  });

  it('refuses a token it did not issue', () => {
    expect(() => paginate(items, { nextToken: 'not-ours' }, true)).toThrow(/Invalid Token/);
  });
});
