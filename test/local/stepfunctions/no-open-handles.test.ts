import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const script = fileURLToPath(new URL('./fixtures/park-then-release.ts', import.meta.url));

/** Runs the script; resolves with its exit code, or 'timeout' if it is still alive after `ms`. */
const run = (mode: string, ms: number) =>
  new Promise<{ code: number | 'timeout'; stdout: string }>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, mode], {
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { ...process.env, AWS_EC2_METADATA_DISABLED: 'true' },
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve({ code: 'timeout', stdout });
    }, ms);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout });
    });
  });

// A parked execution holds the interpreter's (24-day, ref'd) task timer and a pending promise;
// unless it is released, the process cannot exit. Each case parks one execution in a child
// process, releases it, closes the facade and the SDK client, and must then exit by itself.
describe('releasing a parked execution leaves no open handle', () => {
  it('StopExecution', async () => {
    const { code, stdout } = await run('stop', 15_000);
    expect(stdout).toContain('status ABORTED');
    expect(code).toBe(0);
  });

  it('engine.close()', async () => {
    const { code, stdout } = await run('close', 15_000);
    expect(stdout).toContain('closed');
    expect(code).toBe(0);
  });

  it('(control) releasing nothing keeps the process alive', async () => {
    const { code } = await run('none', 4_000);
    expect(code).toBe('timeout');
  });
});
