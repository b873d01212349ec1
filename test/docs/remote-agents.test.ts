import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../faults/stack-process.js';

const runBash = promisify(execFile);

/**
 * docs/remote-agents.md's example, run as a reader would: the first terminal's snippet (ledger),
 * then the second's (alpha), each an `npm start` left running, then the third's, whose output
 * must be what the page says it prints. Ports and the data directory are swapped for free ones,
 * and nothing else changes.
 */

const ROOT = new URL('../..', import.meta.url).pathname;
const PAGE = readFileSync(join(ROOT, 'docs/remote-agents.md'), 'utf8');
const EXAMPLE = PAGE.slice(PAGE.indexOf('## Two `npm start`s that delegate to each other'));
const blocks = (lang: string) =>
  [...EXAMPLE.matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, 'g'))].map(
    (match) => match[1] ?? ''
  );

interface Terminal {
  child: ChildProcess;
  output: () => string;
  exited: Promise<unknown>;
}

const terminals: Terminal[] = [];

/** A snippet run in its own process group, as in a terminal of its own, until stopped. */
const openTerminal = (script: string, env: NodeJS.ProcessEnv): Terminal => {
  const child = spawn('bash', ['-c', script], {
    cwd: ROOT,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise((done) => child.once('exit', done));
  const terminal = { child, output: () => output, exited };
  terminals.push(terminal);
  return terminal;
};

/** Ctrl-C in the terminal: the whole group we started gets SIGINT (SIGKILL if it lingers). */
const closeTerminal = async ({ child, exited }: Terminal) => {
  if (child.pid === undefined || child.exitCode !== null) return;
  process.kill(-child.pid, 'SIGINT');
  const stopped = await Promise.race([
    exited.then(() => true),
    new Promise((done) => setTimeout(() => done(false), 20_000)),
  ]);
  if (!stopped) process.kill(-child.pid, 'SIGKILL');
};

const upIn = async (terminal: Terminal, ms: number) => {
  const deadline = Date.now() + ms;
  while (!terminal.output().includes('Ctrl-C stops everything.')) {
    if (terminal.child.exitCode !== null) throw new Error(`it stopped:\n${terminal.output()}`);
    if (Date.now() > deadline) throw new Error(`not up in time:\n${terminal.output()}`);
    await new Promise((done) => setTimeout(done, 100));
  }
};

describe('docs/remote-agents.md: two npm starts delegating to each other', () => {
  const demo = `.local/remote-demo-${process.pid}`;

  afterAll(async () => {
    for (const terminal of terminals.splice(0).reverse()) await closeTerminal(terminal);
    rmSync(join(ROOT, demo), { recursive: true, force: true });
  });

  it('has the three terminals and the output the page promises', () => {
    expect(blocks('sh')).toHaveLength(3);
    expect(blocks('text')).toHaveLength(1);
  });

  it('runs as written, and prints what the page says', async () => {
    const [alphaPort, ledgerPort] = [await freePort(), await freePort()];
    const local = (snippet: string) =>
      snippet
        .replaceAll('.local/remote-demo', demo)
        .replaceAll('8080', String(alphaPort))
        .replaceAll('8081', String(ledgerPort));
    const [ledgerSnippet = '', alphaSnippet = '', clientSnippet = ''] = blocks('sh').map(local);
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const name of Object.keys(env)) if (name.startsWith('TINY_HARNESS_')) delete env[name];

    const ledger = openTerminal(ledgerSnippet, env);
    await upIn(ledger, 120_000);
    expect(ledger.output()).toMatch(/remote agents {2}alpha: not reachable yet: /);
    const alpha = openTerminal(alphaSnippet, env);
    await upIn(alpha, 120_000);
    expect(alpha.output()).toContain(
      `remote agents  ledger: A2A 1.0 JSONRPC at http://127.0.0.1:${ledgerPort} (push)`
    );

    const { stdout } = await runBash('bash', ['-c', clientSnippet], {
      cwd: ROOT,
      env,
      timeout: 90_000,
    });
    const printed = stdout.trim().split('\n');
    const promised = (blocks('text')[0] ?? '').trim().split('\n');
    expect(printed).toHaveLength(promised.length);
    expect(printed[0]).toBe(promised[0]);
    // The child's id is whatever ledger gave it.
    expect(printed[1]).toMatch(/^child [0-9a-f-]{36} on ledger TASK_STATE_COMPLETED$/);
    expect(promised[1]).toMatch(/^child \S+ on ledger TASK_STATE_COMPLETED$/);
    expect(printed[2]).toBe(promised[2]);
  }, 300_000);
});
