import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));

/** A port nobody listens on right now. */
/**
 * A port free now, for a process started later. Taken below Linux's ephemeral range (32768 up):
 * a port the kernel hands out (a listener on port 0, an outgoing connection of a test running
 * beside this one) is never one of them, so it is still free when the process binds it seconds
 * later (a port 0 would hand out was taken meanwhile in one CI run).
 */
export const freePort = async (): Promise<number> => {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const free = await new Promise<boolean>((done) => {
      const server = createServer();
      server.once('error', () => done(false));
      server.listen(port, '127.0.0.1', () => server.close(() => done(true)));
    });
    if (free) return port;
  }
};

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Java processes whose command line names `dir` (a DynamoDB Local left on the data directory). */
export const javaOn = (dir: string): number[] => {
  try {
    return execFileSync('pgrep', ['-f', `DynamoDBLocal.jar.*${dir}`], { encoding: 'utf8' })
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map(Number);
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
};

export interface StackProcess {
  url: string;
  child: ChildProcess;
  output(): string;
  /** kill -9: no handler runs, DynamoDB Local is left behind. */
  crash(): Promise<void>;
  /** Ctrl-C: a clean stop. */
  stop(): Promise<void>;
}

/**
 * `npm start`'s program (functions/local/start.ts) in a process of its own, on a data directory:
 * what a user runs, killed and restarted by the fault-injection suite.
 */
export const startStackProcess = async (options: {
  dataDir: string;
  port: number;
  env: Record<string, string>;
  readyTimeoutMs?: number;
}): Promise<StackProcess> => {
  const child = spawn(process.execPath, ['--import', 'tsx', 'functions/local/start.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      TINY_HARNESS_PORT: String(options.port),
      TINY_HARNESS_DATA_DIR: options.dataDir,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const deadline = Date.now() + (options.readyTimeoutMs ?? 90_000);
  while (!output.includes('Ctrl-C stops everything.')) {
    if (child.exitCode !== null) throw new Error(`npm start exited early:\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`npm start did not come up:\n${output}`);
    }
    await new Promise((done) => setTimeout(done, 50));
  }
  return {
    url: `http://127.0.0.1:${options.port}`,
    child,
    output: () => output,
    crash: async () => {
      child.kill('SIGKILL');
      await exited;
    },
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGINT');
      await exited;
      for (const pid of javaOn(options.dataDir)) if (alive(pid)) process.kill(pid, 'SIGKILL');
    },
  };
};
