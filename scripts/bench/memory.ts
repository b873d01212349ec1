import { readdirSync, readFileSync } from 'node:fs';
import { statFieldsOf } from './proc.js';

/** Resident set size of a process (VmRSS in /proc/<pid>/status), in bytes; undefined if gone. */
export const rssOf = (pid: number): number | undefined => {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status)?.[1];
    return kib === undefined ? undefined : Number(kib) * 1024;
  } catch {
    return undefined;
  }
};

/**
 * The DynamoDB Local JVM this process started: a child of ours whose command line runs
 * DynamoDBLocal.jar (functions/local/dynamodb-local.ts spawns `java` directly).
 */
export const dynamoDbLocalPid = (parent = process.pid): number | undefined => {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (Number(statFieldsOf(entry)?.[1]) !== parent) continue;
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmdline.includes('DynamoDBLocal.jar')) return Number(entry);
    } catch {
      // The process ended while we looked.
    }
  }
  return undefined;
};

export interface MemorySample {
  nodeRssBytes: number;
  nodeHeapUsedBytes: number;
  dynamodbRssBytes: number;
}

/** Both processes' resident memory, after a full collection when `--expose-gc` allows one. */
export const sampleMemory = (jvmPid: number | undefined): MemorySample => {
  (globalThis as { gc?: () => void }).gc?.();
  const usage = process.memoryUsage();
  return {
    nodeRssBytes: usage.rss,
    nodeHeapUsedBytes: usage.heapUsed,
    dynamodbRssBytes: jvmPid === undefined ? 0 : (rssOf(jvmPid) ?? 0),
  };
};
