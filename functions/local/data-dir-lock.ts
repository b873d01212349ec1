import { closeSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as z from 'zod';

/** Who holds a data directory: written by the running `npm start`, removed when it stops. */
const HolderSchema = z.object({
  pid: z.int(),
  /** The A2A URL, once listening. */
  url: z.string().optional(),
  /** DynamoDB Local's JVM, which outlives a killed `npm start` until the next one ends it. */
  dynamodbPid: z.int().optional(),
  startedAt: z.string(),
});
type Holder = z.infer<typeof HolderSchema>;

export class DataDirLockedError extends Error {
  override readonly name = 'DataDirLockedError';
}

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** The process's command line, NUL-separated (Linux); undefined where /proc cannot tell. */
const commandLine = (pid: number): string | undefined => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return undefined;
  }
};

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

export interface DataDirLock {
  /** Records what the holder runs, for a later process to find. */
  update(holder: Partial<Pick<Holder, 'url' | 'dynamodbPid'>>): void;
  release(): void;
}

/**
 * Takes the data directory for this process, so no two `npm start`s run on one directory (two
 * DynamoDB Local engines on the same files corrupt each other's view). A directory held by a
 * live process is refused with a message naming it; one left by a process that was killed is
 * taken over, and the DynamoDB Local it left running on the directory is stopped first.
 */
export const lockDataDir = async (dataDir: string): Promise<DataDirLock> => {
  const path = join(dataDir, 'lock.json');
  const directory = resolve(dataDir);
  let holder: Holder = { pid: process.pid, startedAt: new Date().toISOString() };
  const write = () => writeFileSync(path, `${JSON.stringify(holder)}\n`);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, `${JSON.stringify(holder)}\n`);
      closeSync(fd);
      return {
        update: (changes) => {
          holder = { ...holder, ...changes };
          write();
        },
        release: () => rmSync(path, { force: true }),
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    let previous: Holder | undefined;
    try {
      previous = HolderSchema.parse(JSON.parse(readFileSync(path, 'utf8')));
    } catch {
      previous = undefined; // unreadable: a crash mid-write; nobody can be shown to hold it
    }
    if (previous !== undefined && previous.pid !== process.pid && isAlive(previous.pid)) {
      throw new DataDirLockedError(
        `the data directory ${directory} is in use by another tiny-harness (pid ${previous.pid}${previous.url ? `, ${previous.url}` : ''}): stop it, or set TINY_HARNESS_DATA_DIR (or --in-memory) for this one`
      );
    }
    const orphan = previous?.dynamodbPid;
    if (orphan !== undefined && isAlive(orphan) && commandLine(orphan)?.includes(directory)) {
      process.kill(orphan, 'SIGKILL');
      for (let waited = 0; isAlive(orphan) && waited < 5_000; waited += 50) await sleep(50);
    }
    rmSync(path, { force: true });
  }
  throw new DataDirLockedError(`could not take the data directory ${directory}`);
};
