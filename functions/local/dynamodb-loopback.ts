/**
 * The launcher that runs DynamoDB Local on 127.0.0.1 only, behind a Host check and a secret
 * (`dynamodb-loopback/LoopbackDynamoDbLocal.java` says how and why: the jar has no option for the
 * address it listens on). It is compiled once per version of its source, by the Java that runs
 * it, into the emulator's folder, so a start pays for no compilation after the first.
 */
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SOURCE = fileURLToPath(
  new URL('./dynamodb-loopback/LoopbackDynamoDbLocal.java', import.meta.url)
);
export const LAUNCHER_CLASS = 'LoopbackDynamoDbLocal';
/** Where the launcher reads the secret: the environment, which only this user can read. */
export const SECRET_VARIABLE = 'TINY_HARNESS_DYNAMODB_SECRET';

/** A secret for one run of DynamoDB Local: URL-safe, as it is the endpoint's path. */
export const newDynamoDbSecret = (): string => randomBytes(24).toString('base64url');

const run = (command: string, args: string[], cwd: string) =>
  new Promise<{ code: number | null; output: string; error?: Error }>((done) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (chunk: Buffer) => {
      output += chunk.toString('utf8');
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.once('error', (error) => done({ code: null, output, error }));
    child.once('close', (code) => done({ code, output }));
  });

/**
 * The folder holding the compiled launcher for `emulatorDir`, compiled now if it is not there yet.
 * Several processes may compile at once (test files starting in parallel): each compiles into a
 * folder of its own and the first rename wins.
 */
export const compiledLauncher = async (emulatorDir: string, jar: string): Promise<string> => {
  const source = readFileSync(SOURCE);
  const version = createHash('sha256').update(source).digest('hex').slice(0, 16);
  const directory = join(emulatorDir, 'loopback-launcher', version);
  if (existsSync(join(directory, `${LAUNCHER_CLASS}.class`))) return directory;
  const scratch = `${directory}.${process.pid}.${randomBytes(4).toString('hex')}`;
  mkdirSync(scratch, { recursive: true });
  try {
    const compiled = await run(
      'java',
      ['-cp', jar, SOURCE, '--compile', SOURCE, scratch],
      emulatorDir
    );
    if (compiled.error !== undefined) throw compiled.error;
    if (compiled.code !== 0) {
      throw new Error(
        `DynamoDB Local runs through a small launcher that binds it to 127.0.0.1, compiled by Java's own compiler, and compiling it failed (exit ${compiled.code}): install a full Java 17 (e.g. openjdk-17-jdk-headless) if this one has no compiler.\n${compiled.output.trim()}`
      );
    }
    try {
      renameSync(scratch, directory);
    } catch (error) {
      // Another process compiled the same source first: its copy is as good as ours.
      if (!existsSync(join(directory, `${LAUNCHER_CLASS}.class`))) throw error;
    }
    return directory;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
};

/** The class path of the launcher beside the jar (whose manifest names DynamoDB Local's libraries). */
export const launcherClassPath = (jar: string, launcherDir: string): string =>
  `${jar}${delimiter}${launcherDir}`;
