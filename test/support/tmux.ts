import { execFileSync } from 'node:child_process';

const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/**
 * A terminal a test drives as a person would: a tmux pane that runs a command; keys typed with
 * send-keys, the screen read with capture-pane. Each instance has its own tmux server (socket).
 */
export class Terminal {
  readonly #socket: string;
  readonly #session: string;

  constructor(options: {
    name: string;
    command: string[];
    env: Record<string, string>;
    cwd: string;
    width?: number;
    height?: number;
  }) {
    this.#socket = `tiny-harness-test-${process.pid}-${options.name}`;
    this.#session = options.name;
    const env = Object.entries(options.env).map(([key, value]) => `${key}=${quote(value)}`);
    // The pane stays after the command ends, so its last screen can still be read.
    const shell = `cd ${quote(options.cwd)} && env ${env.join(' ')} ${options.command.map(quote).join(' ')}; echo "[exited $?]"; sleep 600`;
    this.#tmux(
      'new-session',
      '-d',
      '-s',
      this.#session,
      '-x',
      String(options.width ?? 100),
      '-y',
      String(options.height ?? 50),
      shell
    );
  }

  #tmux(...args: string[]): string {
    return execFileSync('tmux', ['-L', this.#socket, ...args], { encoding: 'utf8' });
  }

  /** Types text, then Enter. */
  type(text: string): void {
    this.#tmux('send-keys', '-t', this.#session, '-l', text);
    this.#tmux('send-keys', '-t', this.#session, 'Enter');
  }

  key(name: string): void {
    this.#tmux('send-keys', '-t', this.#session, name);
  }

  /** The whole screen and its scrollback, wrapped lines joined, as a person reads it. */
  screen(options: { colors?: boolean } = {}): string {
    return this.#tmux(
      'capture-pane',
      '-p',
      '-J',
      '-S',
      '-2000',
      ...(options.colors ? ['-e'] : []),
      '-t',
      this.#session
    )
      .split('\n')
      .map((line) => line.trimEnd())
      .join('\n')
      .replace(/\n+$/, '\n');
  }

  /** Waits until the screen matches, and returns it; fails with the screen after `timeoutMs`. */
  async waitFor(pattern: RegExp, timeoutMs = 30_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const screen = this.screen();
      if (pattern.test(screen)) return screen;
      if (Date.now() > deadline) {
        throw new Error(`the screen never showed ${pattern}; it shows:\n${screen}`);
      }
      await new Promise((done) => setTimeout(done, 100));
    }
  }

  close(): void {
    try {
      this.#tmux('kill-server');
    } catch {
      // Already gone.
    }
  }
}
