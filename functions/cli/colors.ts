import { createColors } from 'picocolors';

export type Colors = ReturnType<typeof createColors>;

/** Colours on a terminal only, never with NO_COLOR set (https://no-color.org) or a dumb terminal. */
export const colorsFor = (
  stream: { isTTY?: boolean | undefined },
  env: NodeJS.ProcessEnv = process.env
): Colors =>
  createColors(
    stream.isTTY === true &&
      (env.NO_COLOR === undefined || env.NO_COLOR === '') &&
      env.TERM !== 'dumb'
  );
