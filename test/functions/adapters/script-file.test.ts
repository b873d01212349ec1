import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadModelScript } from '../../../functions/adapters/model/script-file.js';
import type { ModelRequest } from '../../../functions/core/ports/model.js';

const dir = mkdtempSync(join(tmpdir(), 'script-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const scriptFile = (script: unknown) => {
  const path = join(dir, `script-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(path, JSON.stringify(script));
  return path;
};

const request = { messages: [], tools: [] } as unknown as ModelRequest;

describe('the model script file', () => {
  it('keeps a reply back for its delayMs, and overlapping calls get the replies in the order they were made', async () => {
    const model = loadModelScript(
      scriptFile({ replies: [{ text: 'slow', delayMs: 300 }, { text: 'quick' }] })
    );
    const started = Date.now();
    const finished: string[] = [];
    const [slow, quick] = await Promise.all(
      [model.invoke(request), model.invoke(request)].map(async (reply) => {
        const { text } = await reply;
        finished.push(text);
        return { text, ms: Date.now() - started };
      })
    );
    expect(slow?.text).toBe('slow');
    expect(quick?.text).toBe('quick');
    expect(finished).toEqual(['quick', 'slow']);
    expect(slow?.ms).toBeGreaterThanOrEqual(290);
  });

  it('refuses a delay past the limit, naming the field', () => {
    const path = scriptFile({ replies: [{ text: 'never', delayMs: 30_001 }] });
    expect(() => loadModelScript(path)).toThrow(/is invalid[\s\S]*delayMs/);
  });

  it('still fails loudly past the end of the script', async () => {
    const model = loadModelScript(scriptFile({ replies: [] }));
    await expect(model.invoke(request)).rejects.toThrow(/has 0 replies and was asked for reply 1/);
  });
});
