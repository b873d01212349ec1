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

/** How a parked token was settled: what its waiter gets. */
export type ParkOutcome<T> = { ok: true; output: T } | { ok: false; error: Error };

interface Parked<T> {
  executionArn: string | undefined;
  resolve: (output: T) => void;
  reject: (error: Error) => void;
  heartbeatSeconds: number | undefined;
  heartbeat: DeadlineTimer | undefined;
  timeout: DeadlineTimer | undefined;
  /** Its waiter is out of memory: settling it hands the outcome to `wake` (see `hibernate`). */
  hibernated: boolean;
}

/** How many closed tokens are remembered, to answer `TaskTimedOut` rather than `TaskDoesNotExist`. */
const CLOSED_TOKENS_KEPT = 10_000;

export class TokenRegistry<T = unknown> {
  readonly #parked = new Map<string, Parked<T>>();
  readonly #closed = new Set<string>();
  /** Outcomes of hibernated tokens, kept until their woken waiter parks on them again. */
  readonly #outcomes = new Map<string, ParkOutcome<T>>();
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
      hibernated: false,
    };
    this.#parked.set(token, entry);
    this.#closed.delete(token);
    const outcome = this.#outcomes.get(token);
    if (outcome !== undefined) {
      // A woken waiter: its token was settled while it was out of memory.
      this.#outcomes.delete(token);
      queueMicrotask(() =>
        this.#settle(token, (p) =>
          outcome.ok ? p.resolve(outcome.output) : p.reject(outcome.error)
        )
      );
      return promise;
    }
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

  /**
   * Takes a parked token's waiter out of memory: the token stays parked (its timers run, it
   * answers SendTaskSuccess), and whatever settles it is kept for the waiter, and handed to
   * `wake`, which brings a waiter back to park on the token again. False if the token is not
   * parked (it was settled before its waiter could go).
   */
  hibernate(
    token: string,
    wake: (outcome: ParkOutcome<T>) => void,
    released: Error = stateError('States.Aborted', 'The waiter left memory')
  ): boolean {
    const entry = this.#parked.get(token);
    if (!entry) return false;
    const waiter = entry.reject;
    entry.hibernated = true;
    entry.resolve = (output) => this.#keep(token, { ok: true, output }, wake);
    entry.reject = (error) => this.#keep(token, { ok: false, error }, wake);
    // The waiter gives up (its run unwinds and lets go of its timers): what settles the token
    // from now on is kept for the waiter `wake` brings back.
    waiter(released);
    return true;
  }

  /** Parks a token whose waiter is out of memory from the start (a rehydrated park). */
  parkHibernated(
    token: string,
    options: ParkOptions,
    wake: (outcome: ParkOutcome<T>) => void
  ): void {
    void this.park(token, options);
    this.hibernate(token, wake);
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
    for (const [token, entry] of tokens) {
      // Out of memory, nobody waits on it to be told: it is forgotten.
      if (entry.hibernated) this.#clear(token, entry);
      else this.#settle(token, (p) => p.reject(reason));
    }
    return tokens.map(([token]) => token);
  }

  /**
   * Rejects every parked token and clears every timer. A hibernated token is only forgotten: its
   * execution's checkpoint is what the next process resumes.
   */
  close(reason: Error = stateError('States.Aborted', 'Token registry closed')): void {
    for (const [token, entry] of [...this.#parked]) {
      if (entry.hibernated) this.#clear(token, entry);
      else this.#settle(token, (p) => p.reject(reason));
    }
    this.#outcomes.clear();
  }

  #keep(token: string, outcome: ParkOutcome<T>, wake: (outcome: ParkOutcome<T>) => void): void {
    this.#outcomes.set(token, outcome);
    wake(outcome);
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
