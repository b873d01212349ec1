/**
 * The loop state as a task record stores it. Most of its fields hold, most of the time, what a
 * new task's loop holds (no question pending, no approvals, no summary, nothing charged): a
 * record leaves those out and a read puts them back, so every write of a conversation's record
 * carries what its loop has, not its whole shape. A record an earlier build wrote states every
 * field, and reads the same.
 */

import { isJsonObject, sameJson } from './json-shape.js';

/** Each of `names` with `value`. */
const named = (names: readonly string[], value: unknown) =>
  Object.fromEntries(names.map((name) => [name, value]));

/**
 * The value a stored loop state has for each field it leaves out. Part of the stored format: a
 * value here never changes (a record written without the field reads it back as this value), and
 * a field added to the loop later is added here only with the value it would have been read as.
 */
const UNSTATED: Readonly<Record<string, unknown>> = Object.freeze({
  generation: 1,
  needsModel: false,
  ...named(
    [
      'turn',
      'generationStartTurn',
      'toolCalls',
      'generationStartToolCalls',
      'historySeq',
      'inboxCursor',
      'compactedThrough',
      'lastRequestChars',
      'unreadResults',
      'criteriaReminders',
    ],
    0
  ),
  ...named(
    [
      'summary',
      'lastInputTokens',
      'keptSections',
      'actor',
      'pendingQuestion',
      'response',
      'completionRequest',
      'parkToken',
      'claimedToken',
      'startPendingSince',
      'parentTaskId',
    ],
    null
  ),
  ...named(['appliedCalls', 'attemptedCalls', 'approvals', 'budgetHolders'], []),
  ...named(['childOrder', 'remoteCharged'], {}),
  usage: { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 },
  childrenUsage: {
    usage: {
      model_calls: 0,
      input_tokens: 0,
      cached_input_tokens: 0,
      output_tokens: 0,
      cost_usd: 0,
    },
    unknown: [],
  },
});

/** The loop state's JSON as stored: without the fields that hold their unstated value. */
export const storedLoopJson = (loop: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries(loop).filter(
      ([key, value]) => !(key in UNSTATED && sameJson(value, UNSTATED[key]))
    )
  );

/** A stored loop state's JSON with every field it left out put back (then parsed as ever). */
export const loopFromStored = (json: unknown): unknown =>
  isJsonObject(json) ? { ...unstatedFields(), ...json } : json;

/** A fresh copy of each unstated value: no two fields, nor two reads, share one. */
const unstatedFields = (): Record<string, unknown> =>
  Object.fromEntries(Object.entries(UNSTATED).map(([key, value]) => [key, structuredClone(value)]));
