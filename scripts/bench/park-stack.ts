// A local stack in a process of its own, for the parked-conversations part of the benchmark:
// what `npm start` runs by default (the demo model, a data directory: DynamoDB Local on files,
// executions checkpointed there and parked ones out of memory), so the memory read is the
// stack's alone. The directory is a fresh temporary one, removed on close. Started by conversations.ts with `fork` and `--expose-gc`; it answers on the
// IPC channel: `ready` once up, a memory sample or the CPU time used when asked, and it closes
// when told to.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DemoModel } from '../../functions/adapters/model/demo-model.js';
import { DEFAULT_LOOP_CONFIG } from '../../functions/core/loop/config.js';
import { startLocalStack } from '../../functions/local/local-stack.js';
import { cpuMsOf, ownCpuMs } from './cpu.js';
import { benchStackEnv } from './local-client.js';
import { dynamoDbLocalPid, sampleMemory } from './memory.js';

export type ParkStackRequest =
  | { type: 'sample' }
  | { type: 'cpu' }
  | { type: 'count' }
  | { type: 'close' };
export type ParkStackReply =
  | { type: 'ready'; url: string; dynamodbPid: number | undefined }
  | { type: 'sample'; nodeRssBytes: number; nodeHeapUsedBytes: number; dynamodbRssBytes: number }
  | { type: 'cpu'; nodeCpuMs: number; dynamodbCpuMs: number | null }
  | { type: 'count'; running: number };

const send = (reply: ParkStackReply) => process.send?.(reply);

const dataDir = mkdtempSync(join(tmpdir(), 'tiny-harness-bench-park-'));
const stack = await startLocalStack({
  port: 0,
  dataDir,
  model: new DemoModel(),
  env: benchStackEnv(DEFAULT_LOOP_CONFIG.maxTurns),
});
const jvmPid = dynamoDbLocalPid();
let closing: Promise<void> | undefined;
const close = () => {
  closing ??= stack.close().finally(() => rmSync(dataDir, { recursive: true, force: true }));
  return closing;
};
process.on('message', async (request: ParkStackRequest) => {
  if (request.type === 'sample') send({ type: 'sample', ...sampleMemory(jvmPid) });
  if (request.type === 'cpu') {
    const dynamodbCpuMs = jvmPid === undefined ? undefined : cpuMsOf(jvmPid);
    send({ type: 'cpu', nodeCpuMs: ownCpuMs(), dynamodbCpuMs: dynamodbCpuMs ?? null });
  }
  if (request.type === 'count') {
    let running = 0;
    let nextToken: string | undefined;
    do {
      const page = await stack.engine.listExecutions({
        stateMachineArn: stack.stateMachineArn,
        statusFilter: 'RUNNING',
        maxResults: 1000,
        ...(nextToken === undefined ? {} : { nextToken }),
      });
      running += page.executions?.length ?? 0;
      nextToken = page.nextToken;
    } while (nextToken !== undefined);
    send({ type: 'count', running });
  }
  if (request.type === 'close') {
    await close();
    process.disconnect();
  }
});
// The benchmark went away without saying close (it crashed, or was stopped): stop too.
process.once('disconnect', async () => {
  await close();
  process.exit(0);
});
send({ type: 'ready', url: stack.url, dynamodbPid: jvmPid });
