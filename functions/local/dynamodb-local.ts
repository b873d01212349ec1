/**
 * Runs AWS's DynamoDB Local (the real engine: streams, transactions, TTL) as a child process, for
 * `npm start` and the integration tests. The jar is fetched by `npm run setup` into
 * `.local/dynamodb/` (see scripts/setup.mjs); it is never committed.
 *
 * It runs through a launcher (dynamodb-loopback.ts) that binds it to 127.0.0.1 only, refuses a
 * Host other than its own (DNS rebinding) and serves only the path of a secret made for the run:
 * the endpoint it answers at is `http://127.0.0.1:<port>/<secret>`, which no one else knows.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  DynamoDBClient,
  type DynamoDBClientConfig,
  ListTablesCommand,
} from '@aws-sdk/client-dynamodb';
import {
  compiledLauncher,
  LAUNCHER_CLASS,
  launcherClassPath,
  newDynamoDbSecret,
  SECRET_VARIABLE,
} from './dynamodb-loopback.js';

export interface DynamoDbLocalOptions {
  /** TCP port; 0 (the default) picks a free one. */
  port?: number;
  /** Persist tables in this folder (`-dbPath`); omitted: in memory, gone when stopped. */
  dataDir?: string;
  /** The folder holding `DynamoDBLocal.jar`; default `$DYNAMODB_LOCAL_DIR` or `<repo>/.local/dynamodb`. */
  emulatorDir?: string;
  /** How long to wait for the first answered ListTables; default 30 s. */
  readyTimeoutMs?: number;
}

export interface DynamoDbLocal {
  /** `http://127.0.0.1:<port>/<secret>`: the SDK clients' endpoint (the secret is the path). */
  endpoint: string;
  port: number;
  /** The JVM's process id (a restart after a crash finds it by this). */
  pid: number | undefined;
  /** Kills the child and resolves once it has exited. Safe to call twice. */
  stop(): Promise<void>;
}

const JAR = 'DynamoDBLocal.jar';
const DEFAULT_READY_TIMEOUT_MS = 30_000;
const POLL_INTERVAL_MS = 100;
const ATTEMPT_TIMEOUT_MS = 2_000;
const STDERR_TAIL_LINES = 20;
const PORT_ATTEMPTS = 3;

/**
 * Client settings for a DynamoDB Local endpoint. The engine runs with `-sharedDb`, so region and
 * credentials do not partition the tables; fixed values keep the SDK from probing the credential
 * chain (instance metadata included).
 */
export const localDynamoDbClientConfig = (endpoint: string) =>
  ({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  }) satisfies DynamoDBClientConfig;

/** `<repo>/.local/dynamodb`: the nearest folder above this module holding a package.json. */
const defaultEmulatorDir = (): string => {
  const fromEnv = process.env.DYNAMODB_LOCAL_DIR;
  if (fromEnv) return resolve(fromEnv);
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return join(dir, '.local', 'dynamodb');
    const parent = dirname(dir);
    if (parent === dir) return resolve('.local', 'dynamodb');
    dir = parent;
  }
};

const freePort = (): Promise<number> =>
  new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port ? resolvePort(port) : reject(new Error('no free port found'))));
    });
  });

const javaMissing = () =>
  new Error(
    'java was not found on PATH: install Java 17 to run DynamoDB Local (e.g. `apt-get install openjdk-17-jre-headless`).'
  );

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

// Children still running when this process exits are killed: `exit` covers normal ends,
// process.exit() and uncaught errors; the signal handlers cover SIGINT/SIGTERM/SIGHUP when nobody
// else handles the signal, and then re-raise it, so the default behaviour is kept. A process that
// handles the signal itself (`npm start` stops its stack in order, DynamoDB Local last, so the
// stream reader and running steps never find it gone) is left to do so. A SIGKILL of this
// process cannot be intercepted: the JVM then outlives it (kill it by its pid).
const running = new Set<ChildProcess>();
let exitHooksInstalled = false;
const killAll = () => {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
};
const installExitHooks = () => {
  if (exitHooksInstalled) return;
  exitHooksInstalled = true;
  process.once('exit', killAll);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = () => {
      if (process.listenerCount(signal) > 1) return;
      process.off(signal, onSignal);
      killAll();
      process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
};

interface Launch {
  child: ChildProcess;
  exited: Promise<number | null>;
  stderrTail: () => string;
  spawnError: () => Error | undefined;
  /** The JVM reported that the port is taken (it then stays alive without serving). */
  bindFailed: () => boolean;
}

const BIND_FAILURE = /Failed to bind|BindException|Address already in use/;

interface LaunchOptions {
  emulatorDir: string;
  /** The compiled launcher's folder (dynamodb-loopback.ts). */
  launcherDir: string;
  port: number;
  dataDir: string | undefined;
  secret: string;
}

const launch = ({ emulatorDir, launcherDir, port, dataDir, secret }: LaunchOptions): Launch => {
  const args = [
    '-Djava.library.path=./DynamoDBLocal_lib',
    '-XX:TieredStopAtLevel=1',
    // The tables live in SQLite (native memory or files), not on the Java heap: a small heap,
    // kept small by the serial collector, holds requests. Left to itself the JVM grows a G1 heap
    // toward a quarter of the machine's memory (about 320 MiB resident after a thousand parked
    // conversations here, 166 MiB with these).
    '-XX:+UseSerialGC',
    '-Xms16m',
    '-Xmx256m',
    '-cp',
    launcherClassPath(JAR, launcherDir),
    LAUNCHER_CLASS,
    ...(dataDir === undefined ? ['-inMemory'] : ['-dbPath', resolve(dataDir)]),
    // One database whatever the client's region and access key (they partition tables otherwise).
    '-sharedDb',
    '-disableTelemetry',
    '-port',
    String(port),
  ];
  const child = spawn('java', args, {
    cwd: emulatorDir,
    // A process group of its own: a terminal's Ctrl-C signals the whole foreground group, and
    // the JVM would die at once, under a stack still stopping. It stops when this process says.
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, [SECRET_VARIABLE]: secret },
  });
  const lines: string[] = [];
  let bindFailed = false;
  const keep = (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    if (BIND_FAILURE.test(text)) bindFailed = true;
    lines.push(...text.split('\n').filter(Boolean));
    if (lines.length > STDERR_TAIL_LINES) lines.splice(0, lines.length - STDERR_TAIL_LINES);
  };
  // DynamoDB Local logs its start-up and its errors to stdout as well: keep both in the tail.
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let error: Error | undefined;
  const exited = new Promise<number | null>((done) => {
    child.once('error', (spawnError) => {
      error = spawnError;
      done(null);
    });
    child.once('exit', (code) => done(code));
  });
  running.add(child);
  void exited.then(() => running.delete(child));
  return {
    child,
    exited,
    stderrTail: () => lines.join('\n'),
    spawnError: () => error,
    bindFailed: () => bindFailed,
  };
};

/** Resolves when a ListTables call answers; rejects if the child exits or the time runs out. */
const waitReady = async (endpoint: string, launched: Launch, timeoutMs: number) => {
  const client = new DynamoDBClient({
    ...localDynamoDbClientConfig(endpoint),
    maxAttempts: 1,
  });
  let exited = false;
  void launched.exited.then(() => {
    exited = true;
  });
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      if (exited) return 'exited' as const;
      if (launched.bindFailed()) return 'port-taken' as const;
      try {
        // Bounded per attempt: something else listening on the port may accept and never answer.
        await client.send(new ListTablesCommand({ Limit: 1 }), {
          abortSignal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
        });
        return 'ready' as const;
      } catch {
        if (Date.now() > deadline) return 'timeout' as const;
        await sleep(POLL_INTERVAL_MS);
      }
    }
  } finally {
    client.destroy();
  }
};

const stopChild = async (launched: Launch) => {
  if (launched.child.exitCode === null && launched.child.signalCode === null) {
    launched.child.kill('SIGTERM');
    const timer = setTimeout(() => launched.child.kill('SIGKILL'), 5_000);
    await launched.exited;
    clearTimeout(timer);
  }
  running.delete(launched.child);
};

export const startDynamoDbLocal = async (
  options: DynamoDbLocalOptions = {}
): Promise<DynamoDbLocal> => {
  const emulatorDir = options.emulatorDir ? resolve(options.emulatorDir) : defaultEmulatorDir();
  if (!existsSync(join(emulatorDir, JAR))) {
    throw new Error(
      `DynamoDB Local is not installed (no ${join(emulatorDir, JAR)}): run \`npm run setup\` first.`
    );
  }
  installExitHooks();
  const launcherDir = await compiledLauncher(emulatorDir, JAR).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw javaMissing();
    throw error;
  });
  const timeoutMs = options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS;
  const fixedPort = options.port !== undefined && options.port !== 0;

  for (let attempt = 1; ; attempt++) {
    const port = fixedPort ? (options.port as number) : await freePort();
    const secret = newDynamoDbSecret();
    const endpoint = `http://127.0.0.1:${port}/${secret}`;
    const launched = launch({ emulatorDir, launcherDir, port, dataDir: options.dataDir, secret });
    const outcome = await waitReady(endpoint, launched, timeoutMs);
    if (outcome === 'ready') {
      let stopping: Promise<void> | undefined;
      return {
        endpoint,
        port,
        pid: launched.child.pid,
        stop: () => (stopping ??= stopChild(launched)),
      };
    }
    const spawnError = launched.spawnError();
    if (spawnError && (spawnError as NodeJS.ErrnoException).code === 'ENOENT') throw javaMissing();
    await stopChild(launched);
    const tail = launched.stderrTail();
    // A port picked by us may have been taken between the probe and the JVM's bind: try another.
    if (!fixedPort && outcome === 'port-taken' && attempt < PORT_ATTEMPTS) continue;
    const why =
      outcome === 'timeout'
        ? `did not answer ListTables within ${timeoutMs} ms`
        : outcome === 'port-taken'
          ? 'could not listen: the port is taken'
          : `exited before it was ready${spawnError ? ` (${spawnError.message})` : ''}`;
    throw new Error(
      `DynamoDB Local on port ${port} ${why}. Last output of java:\n${tail || '(none)'}`
    );
  }
};
