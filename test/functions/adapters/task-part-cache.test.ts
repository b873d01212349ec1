import { describe, expect, it } from 'vitest';
import { TaskPartCache } from '../../../functions/adapters/dynamodb/task-part-cache.js';

describe('the cache of task parts', () => {
  it('gives a part back only of the revision it holds, and never of revision 0', () => {
    const cache = new TaskPartCache(1_000);
    const rows = [{ task_id: 'a' }];
    cache.put('t1', 'sub_tasks', 4, rows, 10);
    expect(cache.get('t1', 'sub_tasks', 4)).toBe(rows);
    expect(cache.get('t1', 'sub_tasks', 5)).toBeUndefined();
    expect(cache.get('t1', 'plan', 4)).toBeUndefined();
    expect(cache.get('t2', 'sub_tasks', 4)).toBeUndefined();
    cache.put('t1', 'plan', 0, {}, 10);
    expect(cache.get('t1', 'plan', 0)).toBeUndefined();
    // A newer revision replaces the older.
    cache.put('t1', 'sub_tasks', 5, [], 20);
    expect(cache.get('t1', 'sub_tasks', 4)).toBeUndefined();
    expect(cache.get('t1', 'sub_tasks', 5)).toEqual([]);
    expect(cache.characters).toBe(20);
  });

  it('lets the least recently used go past its limit, and holds nothing larger than it', () => {
    const cache = new TaskPartCache(100);
    cache.put('a', 'sub_tasks', 1, 'a', 40);
    cache.put('b', 'sub_tasks', 1, 'b', 40);
    expect(cache.get('a', 'sub_tasks', 1)).toBe('a');
    cache.put('c', 'sub_tasks', 1, 'c', 40);
    expect(cache.get('b', 'sub_tasks', 1)).toBeUndefined();
    expect(cache.get('a', 'sub_tasks', 1)).toBe('a');
    expect(cache.get('c', 'sub_tasks', 1)).toBe('c');
    expect(cache.characters).toBe(80);
    cache.put('d', 'plan', 1, 'd', 101);
    expect(cache.get('d', 'plan', 1)).toBeUndefined();
    expect(cache.characters).toBe(80);
  });
});

describe('a part held', () => {
  it('is frozen all through: the records read from it share it', () => {
    const cache = new TaskPartCache(1_000);
    const rows = [{ task_id: 'a', usage: { unknown: ['x'] } }];
    cache.put('t', 'sub_tasks', 1, rows, 10);
    const held = cache.get('t', 'sub_tasks', 1) as typeof rows;
    expect(() => held.push({ task_id: 'b', usage: { unknown: [] } })).toThrow(TypeError);
    expect(() => {
      (held[0] as { task_id: string }).task_id = 'changed';
    }).toThrow(TypeError);
    expect(() => held[0]?.usage.unknown.push('y')).toThrow(TypeError);
  });
});
