import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../functions/adapters/system/logger.js';

describe('the structured logger', () => {
  it('writes one JSON line per entry with its fields, and keeps lines below the level out', () => {
    const lines: string[] = [];
    const logger = createLogger({
      level: 'info',
      fields: { agentId: 'a' },
      write: (line) => lines.push(line),
    });
    logger.debug('hidden');
    logger.child({ taskId: 't-1' }).info('turn step done', { op: 'turn' });

    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({
      level: 'info',
      message: 'turn step done',
      agentId: 'a',
      taskId: 't-1',
      op: 'turn',
    });
  });

  it('masks configured secrets and anything that looks like a bearer token or an API key', () => {
    const lines: string[] = [];
    const logger = createLogger({
      level: 'info',
      secrets: ['local-configured-secret-123'],
      write: (line) => lines.push(line),
    });
    logger.error('request failed', {
      errorMessage:
        'got Authorization: Bearer abcdefghijklmnopqrstuvwx and local-configured-secret-123',
      key: 'sk-proj-ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789',
    });

    const line = lines[0] ?? '';
    expect(line).not.toContain('abcdefghijklmnopqrstuvwx');
    expect(line).not.toContain('local-configured-secret-123');
    expect(line).not.toContain('sk-proj-ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789');
    expect(line).toContain('[redacted]');
    expect(() => JSON.parse(line)).not.toThrow();
  });
});
