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

const guarded = new WeakSet<NodeJS.WriteStream>();

/**
 * A reader that stops reading (`tiny-harness tasks | head -3`) ends the command quietly, as it
 * ends `ls`: what is left to print has no one to read it. Without a listener, the EPIPE of the
 * next write is an uncaught error with a stack trace.
 */
const endQuietlyWhenNoOneReads = (stream: NodeJS.WriteStream) => {
  if (guarded.has(stream)) return;
  guarded.add(stream);
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
};

export const outputFor = (
  out: NodeJS.WriteStream = process.stdout,
  err: NodeJS.WriteStream = process.stderr,
  env: NodeJS.ProcessEnv = process.env
): Output => {
  endQuietlyWhenNoOneReads(out);
  endQuietlyWhenNoOneReads(err);
  return {
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
  };
};
