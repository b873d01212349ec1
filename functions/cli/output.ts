import type { Colors } from './colors.js';
import { colorsFor } from './colors.js';

/** Where a command writes, and how: the streams, their colours, whether stdout is a terminal. */
export interface Output {
  out: NodeJS.WriteStream;
  err: NodeJS.WriteStream;
  c: Colors;
  tty: boolean;
  line(text?: string): void;
  json(value: unknown): void;
}

export const outputFor = (
  out: NodeJS.WriteStream = process.stdout,
  err: NodeJS.WriteStream = process.stderr,
  env: NodeJS.ProcessEnv = process.env
): Output => ({
  out,
  err,
  c: colorsFor(out, env),
  tty: out.isTTY === true,
  line: (text = '') => {
    out.write(`${text}\n`);
  },
  json: (value) => {
    out.write(`${JSON.stringify(value, null, 2)}\n`);
  },
});
