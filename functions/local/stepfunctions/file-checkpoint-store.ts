/**
 * A `CheckpointStore` in one JSON file, so running and parked executions survive a restart of
 * `npm start`. Writes go to a temporary file renamed over the old one (atomic on POSIX: a crash
 * leaves the old or the new file, never half of one), one at a time, in call order, each taking
 * every change that waited for it. The file crosses a process boundary, so it is versioned and
 * validated when read.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { HistoryEvent } from '@aws-sdk/client-sfn';
import { z } from 'zod';
import { type Deferred, deferred } from './deferred.js';
import type { CheckpointStore, ExecutionCheckpoint } from './types.js';

const FILE_VERSION = 2;

const CheckpointSchema = z.object({
  executionArn: z.string().min(1),
  stateMachineArn: z.string().min(1),
  name: z.string().min(1),
  stateName: z.string().min(1),
  rawInput: z.unknown(),
  startedAt: z.iso.datetime(),
  input: z.string(),
  history: z.array(
    z.looseObject({ id: z.number().int(), type: z.string(), timestamp: z.iso.datetime() })
  ),
  park: z
    .object({
      token: z.string().min(1),
      parkedAt: z.iso.datetime(),
      timeoutSeconds: z.number().positive().optional(),
      heartbeatSeconds: z.number().positive().optional(),
    })
    .optional(),
});

const FileSchema = z.object({
  version: z.literal(FILE_VERSION),
  executions: z.record(z.string(), CheckpointSchema),
});

type FileContent = z.infer<typeof FileSchema>;

/** JSON has no dates: history timestamps are ISO strings on disk and `Date`s in memory. */
const revive = (checkpoint: z.infer<typeof CheckpointSchema>): ExecutionCheckpoint => {
  const { park, ...rest } = checkpoint;
  const revived: ExecutionCheckpoint = {
    ...rest,
    history: checkpoint.history.map(
      (event) => ({ ...event, timestamp: new Date(event.timestamp) }) as HistoryEvent
    ),
  };
  if (park !== undefined) {
    const { timeoutSeconds, heartbeatSeconds, ...required } = park;
    revived.park = {
      ...required,
      ...(timeoutSeconds === undefined ? {} : { timeoutSeconds }),
      ...(heartbeatSeconds === undefined ? {} : { heartbeatSeconds }),
    };
  }
  return revived;
};

interface Change {
  apply: (content: FileContent) => void;
  done: Deferred<void>;
}

export class FileCheckpointStore implements CheckpointStore {
  readonly path: string;
  #content: Promise<FileContent> | undefined;
  /** Changes waiting for the next write. */
  #pending: Change[] = [];
  #writing: Promise<void> | undefined;

  constructor(path: string) {
    this.path = path;
  }

  saveCheckpoint(checkpoint: ExecutionCheckpoint): Promise<void> {
    const text = JSON.stringify(checkpoint);
    return this.#change((content) => {
      content.executions[checkpoint.executionArn] = JSON.parse(text);
    });
  }

  deleteCheckpoint(executionArn: string): Promise<void> {
    return this.#change((content) => {
      delete content.executions[executionArn];
    });
  }

  async loadCheckpoints(): Promise<ExecutionCheckpoint[]> {
    await this.#writing;
    return Object.values((await this.#read()).executions).map(revive);
  }

  #read(): Promise<FileContent> {
    this.#content ??= (async () => {
      let text: string;
      try {
        text = await readFile(this.path, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
          return { version: FILE_VERSION, executions: {} };
        }
        throw error;
      }
      const parsed = FileSchema.safeParse(JSON.parse(text));
      if (!parsed.success) {
        throw new Error(
          `${this.path} is not an executions checkpoint file: ${z.prettifyError(parsed.error)}`
        );
      }
      return parsed.data;
    })();
    return this.#content;
  }

  #change(apply: Change['apply']): Promise<void> {
    const done = deferred<void>();
    this.#pending.push({ apply, done });
    this.#writing ??= this.#drain().finally(() => {
      this.#writing = undefined;
    });
    return done.promise;
  }

  /**
   * Group commit: the file is rewritten whole, so every change waiting when a write starts
   * goes into that one write (a thousand checkpoints cost a few writes, not a thousand).
   */
  async #drain(): Promise<void> {
    while (this.#pending.length > 0) {
      const batch = this.#pending.splice(0);
      try {
        const content = await this.#read();
        for (const change of batch) change.apply(content);
        await this.#write(content);
        for (const change of batch) change.done.resolve();
      } catch (error) {
        // Forget the cached content: the next change starts again from what is on disk.
        this.#content = undefined;
        for (const change of batch) change.done.reject(error);
      }
    }
  }

  async #write(content: FileContent): Promise<void> {
    await mkdir(dirname(this.path), { recursive: true });
    const temporary = `${this.path}.${process.pid}.${randomUUID()}.tmp`;
    try {
      await writeFile(temporary, `${JSON.stringify(content)}\n`);
      await rename(temporary, this.path);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
  }
}
