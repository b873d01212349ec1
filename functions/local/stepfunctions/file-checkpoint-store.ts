/**
 * A `CheckpointStore` in a directory, so running and parked executions survive a restart of
 * `npm start`. Each execution has one file, `<name>.journal.jsonl`, to which every checkpoint
 * appends one line: where the execution is and the history events since the line before. The
 * last line says where it is; the lines' events together are its history. A checkpoint is one
 * append of one small line, whatever the number of executions, and nothing of them is held in
 * memory. A crash in the middle of an append leaves a last line cut short, with no line end: it
 * is dropped when the file is read, so the one before it holds. Writes of one execution go in
 * call order. The files cross a process boundary, so they are versioned and validated when read.
 *
 * An earlier build kept two files an execution (`<name>.json`, rewritten whole, and
 * `<name>.history.jsonl`): found when the directory is read, they are written as a journal (one
 * line with the whole history) and removed, so a data directory of that build goes on.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { appendFile, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { HistoryEvent } from '@aws-sdk/client-sfn';
import * as z from 'zod';
import type { CheckpointStore, ExecutionCheckpoint } from './types.js';

const FILE_VERSION = 3;
const JOURNAL = '.journal.jsonl';
/** The earlier build's pair (file version 2): where it was, and its history. */
const EARLIER_POSITION = '.json';
const EARLIER_HISTORY = '.history.jsonl';

const HistoryEventSchema = z.looseObject({
  id: z.number().int(),
  type: z.string(),
  timestamp: z.iso.datetime(),
});

const positionFields = {
  executionArn: z.string().min(1),
  stateMachineArn: z.string().min(1),
  name: z.string().min(1),
  stateName: z.string().min(1),
  rawInput: z.unknown(),
  startedAt: z.iso.datetime(),
  input: z.string(),
  /** How many history events the execution has at this checkpoint. */
  historyLength: z.int().min(0),
  park: z
    .object({
      token: z.string().min(1),
      parkedAt: z.iso.datetime(),
      timeoutSeconds: z.number().positive().optional(),
      heartbeatSeconds: z.number().positive().optional(),
    })
    .optional(),
};

/** One line of a journal: a checkpoint, with the history events added since the line before. */
const EntrySchema = z.object({
  version: z.literal(FILE_VERSION),
  ...positionFields,
  events: z.array(HistoryEventSchema),
});

/** The earlier build's position file; its history file holds `historyLength` events or more. */
const EarlierPositionSchema = z.object({ version: z.literal(2), ...positionFields });

type Entry = z.infer<typeof EntrySchema>;
type StoredEvent = z.infer<typeof HistoryEventSchema>;
type Position = Omit<Entry, 'version' | 'events'>;

/** A file's non-empty lines (a journal's, or the earlier build's history). */
const linesOf = (text: string): string[] => text.split('\n').filter((line) => line !== '');

const notACheckpoint = (path: string, why: string) =>
  new Error(`${path} is not an execution checkpoint: ${why}`);

const parsed = <T>(schema: z.ZodType<T>, path: string, text: string): T => {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw notACheckpoint(path, 'a line is not JSON');
  }
  const result = schema.safeParse(json);
  if (!result.success) throw notACheckpoint(path, z.prettifyError(result.error));
  return result.data;
};

/**
 * A journal's text read back: the position of its last whole line and the history of all of
 * them, and whether a last line was cut short (a crash during its append), which is left out.
 */
const readJournal = (
  path: string,
  text: string
): { position: Position; history: StoredEvent[]; whole: string; cut: boolean } | undefined => {
  const end = text.lastIndexOf('\n') + 1;
  const whole = text.slice(0, end);
  const lines = linesOf(whole);
  // Its first checkpoint never landed whole: the execution has none.
  if (lines.length === 0) return undefined;
  const history: StoredEvent[] = [];
  let last: Entry | undefined;
  for (const line of lines) {
    last = parsed(EntrySchema, path, line);
    history.push(...last.events);
    if (history.length !== last.historyLength) {
      throw notACheckpoint(
        path,
        `its lines hold ${history.length} events, not ${last.historyLength}`
      );
    }
  }
  const { version: _version, events: _events, ...position } = last as Entry;
  return { position, history, whole, cut: end < text.length };
};

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

/** A journal line: the events as the engine holds them (their dates written as ISO text). */
const lineOf = (entry: Omit<Entry, 'events'> & { events: readonly unknown[] }): string =>
  `${JSON.stringify(entry)}\n`;

export class FileCheckpointStore implements CheckpointStore {
  readonly directory: string;
  /** History events already in each execution's journal (one that has a journal is here). */
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
      const { history, park, ...position } = checkpoint;
      const written = this.#historyWritten.get(checkpoint.executionArn);
      const line = lineOf({
        version: FILE_VERSION,
        ...position,
        historyLength: history.length,
        ...(park === undefined ? {} : { park }),
        events: history.slice(written ?? 0),
      });
      const path = this.#path(fileKey(checkpoint.executionArn), JOURNAL);
      // An execution's first checkpoint starts its journal afresh.
      if (written === undefined) await writeFile(path, line);
      else await appendFile(path, line);
      this.#historyWritten.set(checkpoint.executionArn, Math.max(written ?? 0, history.length));
    });
  }

  deleteCheckpoint(executionArn: string): Promise<void> {
    return this.#inOrder(executionArn, async () => {
      await rm(this.#path(fileKey(executionArn), JOURNAL), { force: true });
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
    const keysOf = (suffix: string) =>
      new Set(
        names.filter((name) => name.endsWith(suffix)).map((name) => name.slice(0, -suffix.length))
      );
    const journals = keysOf(JOURNAL);
    for (const key of keysOf(EARLIER_POSITION)) {
      // A journal already written from them (a crash before they were removed) is the one.
      if (!journals.has(key)) await this.#journalFromEarlier(key);
      await rm(this.#path(key, EARLIER_POSITION), { force: true });
      await rm(this.#path(key, EARLIER_HISTORY), { force: true });
      journals.add(key);
    }
    const checkpoints: ExecutionCheckpoint[] = [];
    for (const key of [...journals].sort()) {
      const path = this.#path(key, JOURNAL);
      const read = readJournal(path, await readFile(path, 'utf8'));
      if (read === undefined) {
        await rm(path, { force: true });
        continue;
      }
      // A line cut short is dropped from the file too, so the next append starts a line.
      if (read.cut) await writeFile(path, read.whole);
      checkpoints.push(this.#checkpointOf(read.position, read.history));
    }
    return checkpoints;
  }

  /**
   * A checkpoint read at once, for a parked execution the engine took out of memory: its journal
   * was written before it went, and nothing writes it while it is out.
   */
  loadCheckpoint(executionArn: string): ExecutionCheckpoint | undefined {
    const path = this.#path(fileKey(executionArn), JOURNAL);
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    const read = readJournal(path, text);
    return read === undefined ? undefined : this.#checkpointOf(read.position, read.history);
  }

  /** The earlier build's pair of an execution, written as a journal of one line (atomically). */
  async #journalFromEarlier(key: string): Promise<void> {
    const path = this.#path(key, EARLIER_POSITION);
    const { version: _version, ...position } = parsed(
      EarlierPositionSchema,
      path,
      await readFile(path, 'utf8')
    );
    const historyPath = this.#path(key, EARLIER_HISTORY);
    const lines = linesOf(await readIfThere(historyPath));
    if (lines.length < position.historyLength) {
      throw notACheckpoint(
        path,
        `its history has ${lines.length} of its ${position.historyLength} events`
      );
    }
    // Events appended after the checkpoint's own write (a crash in between) are left out.
    const events = lines
      .slice(0, position.historyLength)
      .map((line) => parsed(HistoryEventSchema, historyPath, line));
    await this.#replace(
      this.#path(key, JOURNAL),
      lineOf({ version: FILE_VERSION, ...position, events })
    );
  }

  #checkpointOf(position: Position, events: readonly StoredEvent[]): ExecutionCheckpoint {
    const { historyLength: _length, park, ...rest } = position;
    this.#historyWritten.set(rest.executionArn, events.length);
    // JSON has no dates: timestamps are ISO strings on disk and `Date`s in memory.
    const history = events.map(
      (event) => ({ ...event, timestamp: new Date(event.timestamp) }) as HistoryEvent
    );
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
