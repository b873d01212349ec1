import { randomUUID } from 'node:crypto';
import type { Ids } from '../../core/ports/ids.js';

/** Random UUIDs; the prefix is kept for readability of logs and execution names. */
export class RandomIds implements Ids {
  next(prefix: string): string {
    return prefix === 'task' ? randomUUID() : `${prefix}-${randomUUID()}`;
  }
}
