import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LocalStack } from '../../functions/local/local-stack.js';
import { tokenFor } from './identity.js';

export const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const BIN = resolve(ROOT, 'functions/cli/bin.mjs');

/** The environment a person's shell would give `tiny-harness` for this stack, as `participant`. */
export const cliEnv = (stack: LocalStack, participant: string): NodeJS.ProcessEnv => ({
  ...process.env,
  TINY_HARNESS_URL: stack.url,
  TINY_HARNESS_TOKEN: tokenFor(participant),
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
});

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `tiny-harness ARGS` to its end, stdout and stderr piped (not a terminal). */
export const runCli = (
  args: string[],
  env: NodeJS.ProcessEnv,
  options: { input?: string; timeoutMs?: number } = {}
): Promise<Ran> =>
  new Promise((done, fail) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`tiny-harness ${args.join(' ')} took too long:\n${stdout}\n${stderr}`));
    }, options.timeoutMs ?? 60_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });

/** Starts `tiny-harness ARGS` and keeps it running; its stdout lines arrive as they come. */
export const startCli = (args: string[], env: NodeJS.ProcessEnv) => {
  const child: ChildProcess = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  return {
    child,
    exited,
    lines: () => stdout.split('\n').filter((line) => line !== ''),
    stderr: () => stderr,
  };
};
