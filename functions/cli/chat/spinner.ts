import { clearLine, cursorTo } from 'node:readline';
import type { Colors } from '../colors.js';

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/**
 * The line that says the agent is working (how long, and what it last said it was doing), redrawn
 * in place on a terminal; nothing at all elsewhere.
 */
export class Spinner {
  readonly #out: NodeJS.WritableStream;
  readonly #terminal: boolean;
  readonly #c: Colors;
  #running: { timer: NodeJS.Timeout; started: number; frame: number } | undefined;
  /** What the agent last said it was doing. */
  note = '';

  constructor(out: NodeJS.WritableStream, terminal: boolean, c: Colors) {
    this.#out = out;
    this.#terminal = terminal;
    this.#c = c;
  }

  get running(): boolean {
    return this.#running !== undefined;
  }

  start(): void {
    if (!this.#terminal) return;
    this.note = '';
    const running = { started: Date.now(), frame: 0, timer: setInterval(() => this.#draw(), 120) };
    this.#running = running;
  }

  stop(): void {
    if (this.#running === undefined) return;
    clearInterval(this.#running.timer);
    this.clear();
    this.#running = undefined;
  }

  /** Clears the spinner's line, so a line printed now starts at the left. */
  clear(): void {
    if (this.#running === undefined || !this.#terminal) return;
    clearLine(this.#out, 0);
    cursorTo(this.#out, 0);
  }

  #draw(): void {
    const running = this.#running;
    if (running === undefined) return;
    running.frame++;
    this.clear();
    const seconds = Math.floor((Date.now() - running.started) / 1000);
    this.#out.write(
      this.#c.dim(
        `${FRAMES[running.frame % FRAMES.length]} working ${seconds}s${this.note ? ` · ${this.note}` : ''}  (Ctrl-C stops waiting)`
      )
    );
  }
}
