import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { TASK_EXTENSION_URI } from '../../functions/core/a2a/identifiers.js';
import { AUDIT_EXTENSION_URI } from '../../functions/core/audit/identifiers.js';
import { startCardServer } from '../support/card-server.js';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));

/** A port nobody listens on right now. */
const freePort = () =>
  new Promise<number>((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => done(typeof address === 'object' && address ? address.port : 0));
    });
  });

/** Whether something accepts connections on the port (false: refused). */
const listening = (port: number) =>
  new Promise<boolean>((done) => {
    const socket = connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      done(true);
    });
    socket.once('error', () => done(false));
  });

/** Every process below `pid` (children, their children, ...), with its parent and command name. */
const descendants = (pid: number): Array<{ pid: number; ppid: number; command: string }> => {
  let lines: string[];
  try {
    lines = execFileSync('ps', ['-o', 'pid=,comm=', '--ppid', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .filter((line) => line.trim() !== '');
  } catch {
    return []; // ps exits 1 when there is no child
  }
  return lines.flatMap((line) => {
    const [child, command = ''] = line.trim().split(/\s+/, 2);
    return [{ pid: Number(child), ppid: pid, command }, ...descendants(Number(child))];
  });
};

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

interface Started {
  child: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const started: Started[] = [];
afterEach(() => {
  // A failed test must not leave the stack (and its JVM) running.
  for (const { child } of started.splice(0)) {
    if (child.exitCode === null && child.pid !== undefined) {
      for (const { pid } of descendants(child.pid)) if (alive(pid)) process.kill(pid, 'SIGKILL');
      child.kill('SIGKILL');
    }
  }
});

const run = (command: string, args: string[], env: NodeJS.ProcessEnv): Started => {
  const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.once('exit', (code, signal) => done({ code, signal }))
  );
  const handle = { child, output: () => output, exited };
  started.push(handle);
  return handle;
};

const waitFor = async (what: string, condition: () => boolean, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 50));
  }
};

const within = <T>(promise: Promise<T>, ms: number, what: string) =>
  Promise.race([
    promise,
    new Promise<never>((_, fail) =>
      setTimeout(() => fail(new Error(`${what} took longer than ${ms} ms`)), ms)
    ),
  ]);

describe('npm start (functions/local/start.ts)', () => {
  it('comes up with a banner, answers the agent card and a first message with the demo model, and stops cleanly on Ctrl-C', async () => {
    const port = await freePort();
    const dataDir = mkdtempSync(join(tmpdir(), 'tiny-harness-start-'));
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      TINY_HARNESS_PORT: String(port),
      TINY_HARNESS_DATA_DIR: dataDir,
    };
    delete env.TINY_HARNESS_MODEL_PROVIDER;
    delete env.TINY_HARNESS_MODEL_SCRIPT;
    const app = run('npx', ['tsx', 'functions/local/start.ts', '--in-memory'], env);

    await waitFor(
      'the banner',
      () => app.output().includes('Ctrl-C stops everything.') || app.child.exitCode !== null,
      90_000
    );
    const banner = app.output();
    expect(banner).toContain('tiny-harness is up');
    const url = `http://127.0.0.1:${port}`;
    expect(banner).toMatch(new RegExp(`A2A endpoint\\s+${url}/`));
    expect(banner).toContain(`${url}/.well-known/agent-card.json`);
    expect(banner).toMatch(/model\s+the built-in demo model/);
    expect(banner).toContain('in memory');
    const token = /bearer token (\S+) \(participant "you"\)/.exec(banner)?.[1];
    expect(token).toMatch(/^local-/);
    expect(banner).toContain(`Authorization: Bearer ${token}`);

    const card = await fetch(`${url}/.well-known/agent-card.json`);
    expect(card.status).toBe(200);
    const cardJson = (await card.json()) as {
      capabilities: { extensions: Array<{ uri: string }> };
      supportedInterfaces: Array<{ url: string }>;
    };
    expect(cardJson.capabilities.extensions.map((extension) => extension.uri)).toEqual([
      TASK_EXTENSION_URI,
      AUDIT_EXTENSION_URI,
    ]);
    expect(cardJson.supportedInterfaces[0]?.url).toBe(url);

    // The web page, as the banner says: at /, acting with the same token.
    expect(banner).toMatch(new RegExp(`web page\\s+${url}/\\s+\\(in a browser, as "you"\\)`));
    const page = await fetch(`${url}/`, { headers: { Accept: 'text/html' } });
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await page.text()).toMatch(
      /<script type="module" crossorigin src="\/assets\/index-[\w-]+\.js">/
    );
    const config = await fetch(`${url}/config.json`);
    expect(await config.json()).toEqual({
      api_url: url,
      auth: { kind: 'token', token, participant: 'you' },
    });

    // What the banner tells a user to run with curl: a first message, then a second one to the
    // same task, streamed. Run as the user would run them, in a shell.
    const curls = banner
      .slice(banner.indexOf('Or with curl'), banner.indexOf('Ctrl-C stops everything.'))
      .split('\n')
      .slice(1)
      .join('\n');
    expect(curls).toContain(`curl -s ${url}/message:send`);
    expect(curls).toContain(`curl -sN ${url}/message:stream`);
    const shell = spawnSync('bash', ['-c', `${curls}\necho "TASK=$TASK"`], { encoding: 'utf8' });
    expect(shell.status, shell.stderr).toBe(0);
    const taskId = /^TASK=(\S+)$/m.exec(shell.stdout)?.[1];
    expect(taskId).toMatch(/^[0-9a-f-]{36}$/);
    const frames = shell.stdout.split('\n').filter((line) => line.startsWith('data: '));
    const events = frames.map((line) => JSON.parse(line.slice('data: '.length)));
    const states = events.map((event) => (event.task ?? event.statusUpdate)?.status?.state);
    expect(events[0]?.task?.id).toBe(taskId);
    expect(states).toContain('TASK_STATE_WORKING');
    expect(states.at(-1)).toBe('TASK_STATE_INPUT_REQUIRED');
    // The same task all along, and the demo model says back what it was told, never its markup.
    expect(new Set(events.map((event) => event.task?.id ?? event.statusUpdate?.taskId))).toEqual(
      new Set([taskId])
    );
    const reply = events.at(-1)?.statusUpdate?.status?.message?.parts[0]?.text;
    expect(reply).toMatch(/^\(demo model\) I received: \[you\] Hello again!/);

    // The sample MCP server, as the banner says: a real tool call, then a destructive one that
    // waits for the caller's approval and runs once approved.
    expect(banner).toMatch(
      /tools\s+notes, the sample MCP server .*"delete note n1": a destructive call/
    );
    const say = async (parts: unknown[], messageId: string) => {
      const response = await fetch(`${url}/message:send`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'A2A-Version': '1.0',
          Authorization: `Bearer ${token}`,
        },
        body: JSON.stringify({ message: { messageId, taskId, role: 'ROLE_USER', parts } }),
      });
      const { task } = (await response.json()) as {
        task: { status: { message: { parts: Array<{ text: string }> } }; metadata: object };
      };
      return { text: task.status.message.parts[0]?.text, metadata: task.metadata };
    };
    expect((await say([{ text: 'note buy milk' }], 'm-3')).text).toBe(
      '(demo model) notes__append_note answered:\nadded n1'
    );
    const waiting = await say([{ text: 'delete note n1' }], 'm-4');
    expect(waiting.metadata).toMatchObject({
      'io.github.madarauchiha-314.tiny-harness/status': { sub_state: 'awaiting-approval' },
    });
    expect(waiting.text).toContain('notes__delete_note {"id":"n1"} (approvers: reporter, admin)');
    const approve = { kind: 'control', payload: { action: 'approve' } };
    const approved = await say(
      [{ data: approve, mediaType: 'application/vnd.tiny-harness.event+json' }],
      'm-5'
    );
    expect(approved.text).toBe('(demo model) notes__delete_note answered:\ndeleted n1');

    // The endpoint file: `npx tiny-harness` needs no flags.
    expect(banner).toContain('npx tiny-harness chat');
    const endpoint = JSON.parse(readFileSync(join(dataDir, 'endpoint.json'), 'utf8'));
    expect(endpoint).toMatchObject({ url, token, participant: 'you' });
    expect(statSync(join(dataDir, 'endpoint.json')).mode & 0o777).toBe(0o600);
    const listed = spawnSync('npx', ['tiny-harness', 'tasks', '--json'], {
      cwd: ROOT,
      env: { ...process.env, TINY_HARNESS_DATA_DIR: dataDir },
      encoding: 'utf8',
    });
    expect(listed.status, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout).map((task: { id: string }) => task.id)).toEqual([taskId]);

    const below = descendants(app.child.pid!);
    const javas = below.filter((process) => process.command === 'java');
    expect(javas).toHaveLength(1);
    // The sample server runs beside it, a child of the same process, and stops with it. (Other
    // children may come and go: one under load once, never seen again; the list says which.)
    const beside = below.filter(
      (process) => process.ppid === javas[0]?.ppid && process.command !== 'java'
    );
    expect(beside.length, JSON.stringify(below)).toBeGreaterThanOrEqual(1);

    // Ctrl-C. npx runs start.ts under `npm exec` → `sh -c tsx` → tsx → node; npm and sh do not
    // pass a SIGINT sent to npm's pid alone down the chain (a terminal signals the whole process
    // group), so it goes to the process that runs start.ts: the JVM's parent. Its exit code
    // travels back up through tsx and npx.
    const startProcess = javas[0]!.ppid;
    process.kill(startProcess, 'SIGINT');
    const exit = await within(app.exited, 10_000, 'stopping on SIGINT');

    expect(exit).toEqual({ code: 0, signal: null });
    expect(app.output()).toContain('tiny-harness: stopping');
    expect(await listening(port)).toBe(false);
    expect(existsSync(join(dataDir, 'endpoint.json'))).toBe(false);
    // Nothing it started outlives it: no JVM, no tsx, no orphan.
    await waitFor('the stack processes to end', () => below.every(({ pid }) => !alive(pid)), 5_000);
  }, 120_000);

  it('says in one line that Java 17 is needed, and exits 1, when java is not on the PATH', async () => {
    // A PATH holding node alone (its usual directory also holds java here).
    const bin = mkdtempSync(join(tmpdir(), 'tiny-harness-nojava-'));
    try {
      symlinkSync(process.execPath, join(bin, 'node'));
      const app = run(
        process.execPath,
        ['--import', 'tsx', 'functions/local/start.ts', '--in-memory'],
        { ...process.env, PATH: bin }
      );

      const exit = await within(app.exited, 30_000, 'failing without java');

      expect(exit.code).toBe(1);
      const lines = app
        .output()
        .split('\n')
        .filter((line) => line.trim() !== '');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/Java 17/);
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  }, 60_000);

  const startFails = async (args: string[], extraEnv: NodeJS.ProcessEnv) => {
    const app = run(process.execPath, ['--import', 'tsx', 'functions/local/start.ts', ...args], {
      ...process.env,
      ...extraEnv,
    });
    const began = Date.now();
    const exit = await within(app.exited, 30_000, 'refusing to start');
    return { exit, output: app.output(), ms: Date.now() - began, javas: app };
  };

  it('answers --help with its options and starts nothing', async () => {
    const { exit, output } = await startFails(['--help'], {});
    expect(exit.code).toBe(0);
    expect(output).toContain('Usage: npm start [-- options]');
    for (const flag of ['--port <n>', '--data-dir <dir>', '--in-memory', 'npx tiny-harness chat'])
      expect(output).toContain(flag);
    expect(output).not.toContain('starting DynamoDB Local');
  });

  it('refuses an unknown flag, and a bad port or setting by name, before DynamoDB Local starts', async () => {
    const unknown = await startFails(['--in-memroy'], {});
    expect(unknown.exit.code).toBe(2);
    expect(unknown.output).toMatch(/Unknown option '--in-memroy'/);
    expect(unknown.output).toContain('Usage: npm start');

    const port = await startFails([], { TINY_HARNESS_PORT: 'abc' });
    expect(port.exit.code).toBe(2);
    expect(port.output.trim()).toBe(
      'tiny-harness: TINY_HARNESS_PORT=abc is not a port: give a whole number from 0 to 65535 (0 picks a free one)'
    );
    const flag = await startFails(['--port', '70000'], {});
    expect(flag.output).toContain('--port=70000 is not a port');

    const level = await startFails([], { TINY_HARNESS_LOG_LEVEL: 'loud' });
    expect(level.exit.code).toBe(2);
    expect(level.output).toContain('TINY_HARNESS_LOG_LEVEL');
    for (const refused of [unknown, port, flag, level]) {
      expect(refused.output).not.toContain('starting DynamoDB Local');
    }
  });

  it('refuses a remote agent whose card offers A2A 0.3 only, by name, before DynamoDB Local starts', async () => {
    const cards = await startCardServer({
      '/card.json': () => ({
        name: 'old',
        protocolVersion: '0.3.0',
        url: 'https://old.example.com/a2a',
        preferredTransport: 'JSONRPC',
      }),
    });
    try {
      const { exit, output } = await startFails([], {
        TINY_HARNESS_REMOTE_AGENTS: JSON.stringify({ old: { card: `${cards.url}/card.json` } }),
      });
      expect(exit.code).toBe(2);
      expect(output.trim()).toBe(
        'tiny-harness: remote agent old is refused: its card offers A2A 0.3.0 over JSONRPC at https://old.example.com/a2a; tiny-harness calls A2A 1.0 over JSONRPC or HTTP+JSON'
      );
    } finally {
      await cards.close();
    }
  });

  it('says which variable to change when its port is taken', async () => {
    const taken = createServer();
    await new Promise<void>((done) => taken.listen(0, '127.0.0.1', done));
    const address = taken.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    try {
      const { exit, output } = await startFails([], { TINY_HARNESS_PORT: String(port) });
      expect(exit.code).toBe(2);
      expect(output.trim()).toBe(
        `tiny-harness: port ${port} is in use: set TINY_HARNESS_PORT (or npm start -- --port N) to a free port`
      );
    } finally {
      taken.close();
    }
  });
});
