import { execFileSync } from 'node:child_process';
import { statFieldsOf } from './proc.js';

/** Clock ticks per second of /proc's CPU times (USER_HZ), asked of the system once. */
let ticksPerSecond: number | undefined;
const clockTicks = (): number => {
  if (ticksPerSecond === undefined) {
    const answer = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    if (!Number.isInteger(answer) || answer <= 0) throw new Error(`getconf CLK_TCK said ${answer}`);
    ticksPerSecond = answer;
  }
  return ticksPerSecond;
};

/**
 * CPU time a process has used so far (user + system, in /proc/<pid>/stat), in ms; undefined when
 * it cannot be read (the process is gone, or there is no /proc).
 */
export const cpuMsOf = (pid: number): number | undefined => {
  const fields = statFieldsOf(pid);
  if (fields === undefined) return undefined;
  // utime and stime: the stat file's fields 14 and 15.
  const ticks = Number(fields[11]) + Number(fields[12]);
  return Number.isFinite(ticks) ? (ticks * 1000) / clockTicks() : undefined;
};

/** CPU time this process has used so far (user + system), in ms. */
export const ownCpuMs = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
