/**
 * Test harness: the engine behind its HTTP facade, reached through the real SFN SDK client,
 * plus a recorder for the tokens a park handler is given.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DescribeExecutionCommand,
  type DescribeExecutionOutput,
  SFNClient,
} from '@aws-sdk/client-sfn';
import { afterEach } from 'vitest';
import type { AslMachine } from '../../../functions/local/stepfunctions/asl-walk.js';
import {
  LocalStepFunctions,
  type LocalStepFunctionsOptions,
} from '../../../functions/local/stepfunctions/engine.js';
import {
  type SfnHttpFacade,
  startSfnHttpFacade,
} from '../../../functions/local/stepfunctions/sfn-http-facade.js';
import type { TaskHandler } from '../../../functions/local/stepfunctions/types.js';

export const loadFixture = (name: string): AslMachine =>
  JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8')) as AslMachine;

export interface Harness {
  engine: LocalStepFunctions;
  facade: SfnHttpFacade;
  client: SFNClient;
  close(): Promise<void>;
}

export async function startHarness(options: LocalStepFunctionsOptions = {}): Promise<Harness> {
  const engine = new LocalStepFunctions(options);
  const facade = await startSfnHttpFacade(engine, { port: 0 });
  const client = new SFNClient({
    endpoint: facade.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
  return {
    engine,
    facade,
    client,
    close: async () => {
      client.destroy();
      await facade.close();
      await engine.close();
    },
  };
}

/**
 * The harnesses and temporary folders of a test file that keeps executions in files, closed and
 * removed after each test. `storePath(under)`: a checkpoint folder inside a fresh temporary one
 * (the last in `dirs`).
 */
export const fileStoreFixtures = (prefix: string) => {
  const dirs: string[] = [];
  const harnesses: Harness[] = [];
  afterEach(async () => {
    for (const h of harnesses.splice(0)) await h.close();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const storePath = (...under: string[]) => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(dir);
    return join(dir, ...under, 'executions');
  };
  return { dirs, harnesses, storePath };
};

/** The input turn-loop.asl.json's agent step is given (and returns, one turn on). */
export interface LoopTurn {
  taskId: string;
  turn: number;
  lastInput: string | null;
  executionId?: string;
}

/**
 * turn-loop.asl.json's agent step: parks after each turn until turn `doneAt`, then done. `seen`
 * collects the turns it was given.
 */
export const turnLoopAgentStep =
  (doneAt: number, seen: LoopTurn[] = []): TaskHandler =>
  (input) => {
    const turn = input as LoopTurn;
    seen.push(turn);
    const next = turn.turn + 1;
    return {
      taskId: turn.taskId,
      turn: next,
      next: next >= doneAt ? 'done' : 'park',
      lastInput: turn.lastInput,
    };
  };

/** Parks after its first turn, done after its second. */
export const twoTurnAgentStep = turnLoopAgentStep(2);

/** Polls DescribeExecution (through the SDK) until the execution has left RUNNING. */
export async function waitForEnd(
  client: SFNClient,
  executionArn: string | undefined,
  timeoutMs = 10_000
) {
  if (!executionArn) throw new Error('no execution ARN');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const described: DescribeExecutionOutput = await client.send(
      new DescribeExecutionCommand({ executionArn })
    );
    if (described.status !== 'RUNNING') return described;
    if (Date.now() > deadline)
      throw new Error(`${executionArn} still RUNNING after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export interface ParkCall {
  payload: Record<string, unknown>;
  token: string;
  executionArn: string;
}

/** A park handler that records its calls; `next()` waits for the next one. */
export class ParkRecorder {
  readonly calls: ParkCall[] = [];
  #waiters: Array<(call: ParkCall) => void> = [];
  #seen = 0;

  readonly handler = async (input: unknown, ctx: { executionArn: string; taskToken?: string }) => {
    const call = {
      payload: input as Record<string, unknown>,
      token: ctx.taskToken ?? '',
      executionArn: ctx.executionArn,
    };
    this.calls.push(call);
    this.#waiters.shift()?.(call);
    return { parked: true };
  };

  next(): Promise<ParkCall> {
    const index = this.#seen++;
    const ready = this.calls[index];
    if (ready) return Promise.resolve(ready);
    return new Promise((resolve) => this.#waiters.push(resolve));
  }
}
