/**
 * Task tokens for callback (`.waitForTaskToken`) states. The interpreter has no callback support
 * and ignores `HeartbeatSeconds`, so a parked state awaits `park()`'s promise, which
 * `success`/`failure` settle and the heartbeat and task timers reject. Every parked promise can
 * be rejected from outside (`cancelExecution`, `close`): the interpreter gives Task handlers no
 * abort signal, and a parked promise nobody settles keeps its execution (and the process) alive.
 */
import { deferred } from './deferred.js';
import { SfnServiceError, stateError } from './sfn-errors.js';
import { armDeadline, type DeadlineTimer } from './timers.js';

export interface ParkOptions {
  /** The execution the token belongs to, for `cancelExecution`. */
  executionArn?: string;
  heartbeatSeconds?: number;
  timeoutSeconds?: number;
  /** When the task started (epoch ms); the task timeout counts from here. Default: now. */
  startedAtMs?: number;
}

interface Parked<T> {
  executionArn: string | undefined;
  resolve: (output: T) => void;
  reject: (error: Error) => void;
  heartbeatSeconds: number | undefined;
  heartbeat: DeadlineTimer | undefined;
  timeout: DeadlineTimer | undefined;
}

/** How many closed tokens are remembered, to answer `TaskTimedOut` rather than `TaskDoesNotExist`. */
const CLOSED_TOKENS_KEPT = 10_000;

export class TokenRegistry<T = unknown> {
  readonly #parked = new Map<string, Parked<T>>();
  readonly #closed = new Set<string>();
  readonly #now: () => number;

  constructor(options: { now?: () => number } = {}) {
    this.#now = options.now ?? Date.now;
  }

  /** Parks `token`; the promise settles once, by success, failure, expiry or cancellation. */
  park(token: string, options: ParkOptions = {}): Promise<T> {
    if (this.#parked.has(token)) {
      return Promise.reject(new SfnServiceError('InvalidToken', `Token already parked: ${token}`));
    }
    const { promise, resolve, reject } = deferred<T>();
    // Marks the promise handled: a token cancelled before its waiter attached must not surface
    // as an unhandled rejection. The caller still sees the rejection on `promise`.
    promise.catch(() => {});
    const entry: Parked<T> = {
      executionArn: options.executionArn,
      resolve,
      reject,
      heartbeatSeconds: options.heartbeatSeconds,
      heartbeat: undefined,
      timeout: undefined,
    };
    this.#parked.set(token, entry);
    this.#closed.delete(token);
    if (options.timeoutSeconds !== undefined) {
      const deadline = (options.startedAtMs ?? this.#now()) + options.timeoutSeconds * 1000;
      entry.timeout = armDeadline(
        deadline,
        () => this.#settle(token, (p) => p.reject(expired('States.Timeout'))),
        this.#now
      );
    }
    this.#armHeartbeat(token, entry);
    return promise;
  }

  success(token: string, output: T): void {
    this.#settle(this.#require(token), (p) => p.resolve(output));
  }

  failure(token: string, error: string, cause?: string): void {
    this.#settle(this.#require(token), (p) => p.reject(stateError(error, cause ?? '')));
  }

  /** Re-arms the heartbeat timer; a token without HeartbeatSeconds just has to exist. */
  heartbeat(token: string): void {
    const entry = this.#parked.get(this.#require(token));
    if (entry) this.#armHeartbeat(token, entry);
  }

  has(token: string): boolean {
    return this.#parked.has(token);
  }

  get size(): number {
    return this.#parked.size;
  }

  /** Forgets a token without settling it (its waiter gave up, e.g. the park handler threw). */
  discard(token: string): void {
    const entry = this.#parked.get(token);
    if (!entry) return;
    this.#clear(token, entry);
  }

  /** Rejects every token of one execution with `reason`; returns the tokens. */
  cancelExecution(executionArn: string, reason: Error): string[] {
    const tokens = [...this.#parked].filter(([, p]) => p.executionArn === executionArn);
    for (const [token] of tokens) this.#settle(token, (p) => p.reject(reason));
    return tokens.map(([token]) => token);
  }

  /** Rejects every parked token and clears every timer. */
  close(reason: Error = stateError('States.Aborted', 'Token registry closed')): void {
    for (const token of [...this.#parked.keys()]) this.#settle(token, (p) => p.reject(reason));
  }

  #require(token: string): string {
    if (this.#parked.has(token)) return token;
    if (this.#closed.has(token)) {
      throw new SfnServiceError(
        'TaskTimedOut',
        'Task Timed Out: Provided task does not exist anymore'
      );
    }
    throw new SfnServiceError('TaskDoesNotExist', 'Task does not exist anymore');
  }

  #armHeartbeat(token: string, entry: Parked<T>): void {
    entry.heartbeat?.cancel();
    if (entry.heartbeatSeconds === undefined) return;
    entry.heartbeat = armDeadline(
      this.#now() + entry.heartbeatSeconds * 1000,
      () => this.#settle(token, (p) => p.reject(expired('States.HeartbeatTimeout'))),
      this.#now
    );
  }

  #settle(token: string, settle: (entry: Parked<T>) => void): void {
    const entry = this.#parked.get(token);
    if (!entry) return;
    this.#clear(token, entry);
    this.#closed.add(token);
    if (this.#closed.size > CLOSED_TOKENS_KEPT) {
      const oldest = this.#closed.values().next().value;
      if (oldest !== undefined) this.#closed.delete(oldest);
    }
    settle(entry);
  }

  #clear(token: string, entry: Parked<T>): void {
    entry.heartbeat?.cancel();
    entry.timeout?.cancel();
    this.#parked.delete(token);
  }
}

const expired = (name: 'States.Timeout' | 'States.HeartbeatTimeout') =>
  stateError(name, name === 'States.Timeout' ? 'Task timed out' : 'Task heartbeat timed out');
