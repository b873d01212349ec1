import { describe, expect, it } from 'vitest';
import { slugify } from '../../../functions/core/plan/slug.js';

describe('slugify', () => {
  it('lower-cases a name and joins its words with dashes', () => {
    expect(slugify('Gather facts')).toBe('gather-facts');
  });

  it('turns every run of characters outside a-z0-9 into a single dash', () => {
    expect(slugify('Write   the__REPORT!!now')).toBe('write-the-report-now');
  });

  it('trims leading and trailing dashes', () => {
    expect(slugify('  -- Draft --  ')).toBe('draft');
  });

  it("falls back to 'step' when nothing is left", () => {
    expect(slugify('  --  ')).toBe('step');
    expect(slugify('')).toBe('step');
    expect(slugify('日本語')).toBe('step');
  });

  it('treats accented letters as separators, since only a-z0-9 survive', () => {
    expect(slugify('Ünïcode & stuff')).toBe('n-code-stuff');
  });

  it('keeps digits', () => {
    expect(slugify('Step 2: review v10')).toBe('step-2-review-v10');
    expect(slugify('42')).toBe('42');
  });

  it('is idempotent, so an id slugs to itself', () => {
    for (const name of ['Gather facts', 'Ünïcode & stuff', '  --  ', 'a-b-c']) {
      expect(slugify(slugify(name))).toBe(slugify(name));
    }
  });
});
