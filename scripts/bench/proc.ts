import { readFileSync } from 'node:fs';

/**
 * The fields of /proc/<pid>/stat after the command name (`state` first, then `ppid`, ...): the
 * name may hold spaces, so they are read after its ')'. Undefined when the process is gone (or
 * there is no /proc).
 */
export const statFieldsOf = (pid: number | string): string[] | undefined => {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
};
