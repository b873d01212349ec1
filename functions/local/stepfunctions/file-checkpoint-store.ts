/**
 * A `CheckpointStore` in a directory, so running and parked executions survive a restart of
 * `npm start`. Each execution has two files: `<name>.json`, where it is (rewritten whole: a
 * temporary file renamed over the old one, atomic on POSIX, so a crash leaves the old or the new
 * one, never half), and `<name>.history.jsonl`, its history, appended to. A checkpoint costs one
 * small write and the history events since the last one, whatever the number of executions, and
 * nothing of them is held in memory. Writes of one execution go in call order. The files cross a
 * process boundary, so they are versioned and validated when read.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { appendFile, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { HistoryEvent } from '@aws-sdk/client-sfn';
import * as z from 'zod';
import type { CheckpointStore, ExecutionCheckpoint } from './types.js';

const FILE_VERSION = 2;
const POSITION = '.json';
const HISTORY = '.history.jsonl';

const PositionSchema = z.object({
  version: z.literal(FILE_VERSION),
  executionArn: z.string().min(1),
  stateMachineArn: z.string().min(1),
  name: z.string().min(1),
  stateName: z.string().min(1),
  rawInput: z.unknown(),
  startedAt: z.iso.datetime(),
  input: z.string(),
  /** How many lines of the history file belong to this checkpoint. */
  historyLength: z.int().min(0),
  park: z
    .object({
      token: z.string().min(1),
      parkedAt: z.iso.datetime(),
      timeoutSeconds: z.number().positive().optional(),
      heartbeatSeconds: z.number().positive().optional(),
    })
    .optional(),
});

const HistoryEventSchema = z.looseObject({
  id: z.number().int(),
  type: z.string(),
  timestamp: z.iso.datetime(),
});

type Position = z.infer<typeof PositionSchema>;

const parsePosition = (path: string, text: string): Position => {
  const parsed = PositionSchema.safeParse(JSON.parse(text));
  if (!parsed.success) {
    throw new Error(`${path} is not an execution checkpoint: ${z.prettifyError(parsed.error)}`);
  }
  return parsed.data;
};

const historyLines = (text: string): string[] => text.split('\n').filter((line) => line !== '');

const readIfThere = async (path: string): Promise<string> => {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw error;
  }
};

/** An execution's files are named after its state machine and name (both `[A-Za-z0-9_-]+`). */
const fileKey = (executionArn: string): string => {
  const [machine, name] = executionArn.split(':').slice(-2);
  if (!machine || !name || !/^[A-Za-z0-9_-]+$/.test(`${machine}${name}`)) {
    throw new Error(`not an execution ARN this store can name a file after: ${executionArn}`);
  }
  return `${machine}__${name}`;
};

export class FileCheckpointStore implements CheckpointStore {
  readonly directory: string;
  /** History events already in each execution's history file. */
  readonly #historyWritten = new Map<string, number>();
  /** The last write of each execution, so its writes go in order. */
  readonly #tails = new Map<string, Promise<void>>();
  /** The directory, made by the first checkpoint (not again by every one). */
  #made: Promise<unknown> | undefined;

  constructor(directory: string) {
    this.directory = directory;
  }

  saveCheckpoint(checkpoint: ExecutionCheckpoint): Promise<void> {
    return this.#inOrder(checkpoint.executionArn, async () => {
      this.#made ??= mkdir(this.directory, { recursive: true }).catch((error: unknown) => {
        this.#made = undefined;
        throw error;
      });
      await this.#made;
      const key = fileKey(checkpoint.executionArn);
      const { history, park, ...position } = checkpoint;
      const written = this.#historyWritten.get(checkpoint.executionArn) ?? 0;
      const fresh = history.slice(written);
      if (fresh.length > 0) {
        const lines = fresh.map((event) => `${JSON.stringify(event)}\n`).join('');
        if (written === 0) await writeFile(this.#path(key, HISTORY), lines);
        else await appendFile(this.#path(key, HISTORY), lines);
      }
      this.#historyWritten.set(checkpoint.executionArn, Math.max(written, history.length));
      await this.#replace(
        this.#path(key, POSITION),
        JSON.stringify({
          version: FILE_VERSION,
          ...position,
          historyLength: history.length,
          ...(park === undefined ? {} : { park }),
        })
      );
    });
  }

  deleteCheckpoint(executionArn: string): Promise<void> {
    return this.#inOrder(executionArn, async () => {
      const key = fileKey(executionArn);
      await rm(this.#path(key, POSITION), { force: true });
      await rm(this.#path(key, HISTORY), { force: true });
      this.#historyWritten.delete(executionArn);
    });
  }

  async loadCheckpoints(): Promise<ExecutionCheckpoint[]> {
    await Promise.all(this.#tails.values());
    let names: string[];
    try {
      names = await readdir(this.directory);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const checkpoints: ExecutionCheckpoint[] = [];
    for (const name of names.filter((file) => file.endsWith(POSITION)).sort()) {
      const path = join(this.directory, name);
      const position = parsePosition(path, await readFile(path, 'utf8'));
      const historyPath = this.#path(fileKey(position.executionArn), HISTORY);
      const lines = historyLines(await readIfThere(historyPath));
      const kept = lines.slice(0, position.historyLength);
      // Events appended after the checkpoint's own write (a crash in between) are cut off, so
      // later appends follow it.
      if (lines.length !== kept.length) {
        await writeFile(historyPath, kept.map((line) => `${line}\n`).join(''));
      }
      checkpoints.push(this.#checkpointOf(position, kept));
    }
    return checkpoints;
  }

  /**
   * A checkpoint read at once, for a parked execution the engine took out of memory: its files
   * were written before it went, and nothing writes them while it is out.
   */
  loadCheckpoint(executionArn: string): ExecutionCheckpoint | undefined {
    const key = fileKey(executionArn);
    const path = this.#path(key, POSITION);
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    const position = parsePosition(path, text);
    let history = '';
    try {
      history = readFileSync(this.#path(key, HISTORY), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    return this.#checkpointOf(position, historyLines(history).slice(0, position.historyLength));
  }

  #checkpointOf(position: Position, lines: readonly string[]): ExecutionCheckpoint {
    const { version: _version, historyLength: _length, park, ...rest } = position;
    this.#historyWritten.set(rest.executionArn, lines.length);
    // JSON has no dates: timestamps are ISO strings on disk and `Date`s in memory.
    const history = lines.map((line) => {
      const event = HistoryEventSchema.parse(JSON.parse(line));
      return { ...event, timestamp: new Date(event.timestamp) } as HistoryEvent;
    });
    const checkpoint: ExecutionCheckpoint = { ...rest, history };
    if (park !== undefined) {
      const { timeoutSeconds, heartbeatSeconds, ...required } = park;
      checkpoint.park = {
        ...required,
        ...(timeoutSeconds === undefined ? {} : { timeoutSeconds }),
        ...(heartbeatSeconds === undefined ? {} : { heartbeatSeconds }),
      };
    }
    return checkpoint;
  }

  #path(key: string, suffix: string): string {
    return join(this.directory, `${key}${suffix}`);
  }

  async #replace(path: string, text: string): Promise<void> {
    const temporary = `${path}.${process.pid}.${randomUUID()}.tmp`;
    try {
      await writeFile(temporary, text);
      await rename(temporary, path);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
  }

  #inOrder(executionArn: string, write: () => Promise<void>): Promise<void> {
    const next = (this.#tails.get(executionArn) ?? Promise.resolve())
      .catch(() => undefined)
      .then(write);
    this.#tails.set(executionArn, next);
    void next
      .finally(() => {
        if (this.#tails.get(executionArn) === next) this.#tails.delete(executionArn);
      })
      .catch(() => undefined);
    return next;
  }
}
