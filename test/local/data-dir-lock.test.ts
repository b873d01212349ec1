import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DataDirLockedError, lockDataDir } from '../../functions/local/data-dir-lock.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const dataDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'tiny-harness-lock-'));
  dirs.push(dir);
  return dir;
};

/** A process that sleeps with `dir` on its command line, as DynamoDB Local's JVM has its -dbPath. */
const sleeperOn = (dir: string) => {
  const child = spawn(
    process.execPath,
    ['-e', 'setTimeout(() => {}, 60000)', join(dir, 'dynamodb')],
    {
      stdio: 'ignore',
    }
  );
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  return { child, exited };
};

describe('the data directory lock', () => {
  it('refuses a second holder while the first lives, naming it; a released lock is free again', async () => {
    const dir = dataDir();
    const lock = await lockDataDir(dir);
    lock.update({ url: 'http://127.0.0.1:8080' });
    const holder = JSON.parse(readFileSync(join(dir, 'lock.json'), 'utf8'));
    expect(holder).toMatchObject({ pid: process.pid, url: 'http://127.0.0.1:8080' });

    // Another live process holds it (its pid is on the lock).
    const other = sleeperOn(dataDir());
    writeFileSync(join(dir, 'lock.json'), JSON.stringify({ ...holder, pid: other.child.pid }));
    const refused = await lockDataDir(dir).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DataDirLockedError);
    expect((refused as Error).message).toContain(`pid ${other.child.pid}, http://127.0.0.1:8080`);
    other.child.kill('SIGKILL');
    await other.exited;

    writeFileSync(join(dir, 'lock.json'), JSON.stringify(holder));
    lock.release();
    expect(existsSync(join(dir, 'lock.json'))).toBe(false);
    (await lockDataDir(dir)).release();
  });

  it('takes over a lock whose holder was killed, stopping the DynamoDB Local it left on the directory', async () => {
    const dir = dataDir();
    const orphan = sleeperOn(dir);
    const unrelated = sleeperOn(dataDir());
    writeFileSync(
      join(dir, 'lock.json'),
      JSON.stringify({
        pid: 2 ** 22 + 1,
        dynamodbPid: orphan.child.pid,
        startedAt: new Date().toISOString(),
      })
    );

    const lock = await lockDataDir(dir);
    await orphan.exited;

    expect(orphan.child.signalCode).toBe('SIGKILL');
    expect(JSON.parse(readFileSync(join(dir, 'lock.json'), 'utf8')).pid).toBe(process.pid);
    // A process that is not on this directory is never touched, whatever the lock says.
    writeFileSync(
      join(dir, 'lock.json'),
      JSON.stringify({
        pid: 2 ** 22 + 2,
        dynamodbPid: unrelated.child.pid,
        startedAt: new Date().toISOString(),
      })
    );
    lock.release();
    writeFileSync(
      join(dir, 'lock.json'),
      JSON.stringify({
        pid: 2 ** 22 + 2,
        dynamodbPid: unrelated.child.pid,
        startedAt: new Date().toISOString(),
      })
    );
    (await lockDataDir(dir)).release();
    expect(unrelated.child.exitCode).toBeNull();
    expect(unrelated.child.signalCode).toBeNull();
    unrelated.child.kill('SIGKILL');
    await unrelated.exited;
  });
});
