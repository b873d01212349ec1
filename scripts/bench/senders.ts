import { ScriptedModel } from '../../functions/core/testing/scripted-model.js';
import type { LocalStack } from '../../functions/local/local-stack.js';
import type { BenchFigures } from './figures.js';
import { executionsOf, isParked, sendMessage, sleep, userMessage } from './local-client.js';
import type { SwitchModel } from './models.js';
import { percentile } from './stats.js';

export interface SendersRun {
  latenciesMs: number[];
  refused: number;
  seconds: number;
}

/**
 * `senders` clients each send `messages` messages to one task (returnImmediately), one after
 * another, all clients at once: how long a SendMessage takes while the task is busy with the
 * others, and whether any is refused (none should be: inbox seqs need no retry loop).
 */
export const concurrentSenders = async (
  stack: LocalStack,
  model: SwitchModel,
  senders: number,
  messages: number
): Promise<SendersRun> => {
  // Text answers only; the task takes a turn for every few messages that reach it.
  const scripted = new ScriptedModel(
    Array.from({ length: senders * messages + 10 }, () => ({ text: 'ok' }))
  );
  model.current = scripted;
  const taskId = (await sendMessage(stack.url, userMessage('a task for many senders'))).id;
  const latenciesMs: number[] = [];
  let refused = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: senders }, async (_, sender) => {
      for (let n = 0; n < messages; n++) {
        const sent = performance.now();
        try {
          // A client firing messages asks for none of the conversation back.
          await sendMessage(stack.url, userMessage(`sender ${sender} message ${n}`, taskId), {
            historyLength: 0,
          });
          latenciesMs.push(performance.now() - sent);
        } catch {
          refused++;
        }
      }
    })
  );
  const seconds = (performance.now() - started) / 1000;
  await settle(stack, taskId, scripted);
  return { latenciesMs, refused, seconds };
};

/**
 * Waits until the task has folded every message: parked, with no model call for a while, so
 * the next part of the benchmark does not share the CPU with its last turns.
 */
const settle = async (stack: LocalStack, taskId: string, model: ScriptedModel) => {
  const deadline = Date.now() + 120_000;
  let calls = -1;
  while (Date.now() < deadline) {
    const parked = isParked(stack, await executionsOf(stack, taskId));
    if (parked && model.requests.length === calls) return;
    calls = model.requests.length;
    await sleep(250);
  }
  throw new Error(`the senders' task ${taskId} did not settle`);
};

/** The concurrent senders' figures. */
export const sendersFigures = async (
  stack: LocalStack,
  model: SwitchModel,
  senders: number,
  messages: number
): Promise<NonNullable<BenchFigures['concurrent_senders']>> => {
  const run = await concurrentSenders(stack, model, senders, messages);
  return {
    senders,
    messages_per_sender: messages,
    accepted: run.latenciesMs.length,
    refused: run.refused,
    seconds: run.seconds,
    p50_ms: percentile(run.latenciesMs, 50),
    p95_ms: percentile(run.latenciesMs, 95),
    max_ms: Math.max(0, ...run.latenciesMs),
  };
};
