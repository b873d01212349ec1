import type {
  Model,
  ModelInputItem,
  ModelRequest,
  ModelResponse,
  ModelToolCall,
} from '../../core/ports/model.js';

/**
 * The agent the A2A conformance kit (a2aproject/a2a-tck) drives, played by the harness's own loop:
 * the kit steers its reference agent by the prefix of each message's `messageId` (its scenario
 * files), so this model answers the newest message of its turn's input by that prefix (the loop
 * gives the model each participant message's id). Everything else is the
 * harness as it is: the same A2A layer, store, state machine and streams. With client tasks
 * `delegated` (TINY_HARNESS_TASK_LIFECYCLE), a turn without a tool call completes the task, and
 * `ask_participant` parks it in INPUT_REQUIRED until the next message.
 *
 * No network, no key. Each answer waits a little first, so a client following the task sees it
 * WORKING before it ends, as the kit's reference agent lets it.
 */

export interface ConformanceTiming {
  /** How long every answer takes. */
  workMs: number;
  /** How long the answer to the kit's long-running task (its resubscribe scenario) takes. */
  longMs: number;
}

export const CONFORMANCE_TIMING: ConformanceTiming = { workMs: 500, longMs: 4_000 };

interface Behaviour {
  text?: string;
  /** Park the task with a question (INPUT_REQUIRED). */
  ask?: string;
  long?: boolean;
}

/** What the reference agent does for each messageId prefix, most specific first. */
const BEHAVIOURS: ReadonlyArray<[prefix: string, behaviour: Behaviour]> = [
  ['tck-input-required', { ask: 'The TCK needs more input: send the next message.' }],
  ['test-resubscribe-message-id', { text: 'Long-running task done.', long: true }],
  ['tck-complete-task', { text: 'Hello from TCK' }],
  ['tck-stream-artifact-text', { text: 'Streamed text content' }],
  ['tck-stream-ordering-001', { text: 'Ordered output' }],
  ['tck-stream-001', { text: 'Stream hello from TCK' }],
  ['tck-stream-003', { text: 'Stream task lifecycle' }],
  ['tck-artifact-text', { text: 'Generated text content' }],
  // An answer that is JSON is carried as a data part too (answer-artifact.ts).
  ['tck-artifact-data', { text: '{"key": "value", "count": 42}' }],
];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const usageOf = (request: ModelRequest) => ({
  inputTokens: Math.ceil(JSON.stringify(request.input).length / 4),
  cachedInputTokens: 0,
  outputTokens: 10,
});

/** How the loop shows the model who said a participant's message: `[participant] text`. */
const SPEAKER = /^\[([^\]]+)\] /;

/** The newest participant message of the turn's input, with its id and its sender. */
const lastMessage = (input: readonly ModelInputItem[]) => {
  for (let index = input.length - 1; index >= 0; index--) {
    const item = input[index];
    if (item?.type === 'message' && item.role === 'user' && item.messageId !== undefined) {
      return { id: item.messageId, participantId: SPEAKER.exec(item.text)?.[1] };
    }
  }
  return undefined;
};

export class ConformanceModel implements Model {
  readonly #timing: ConformanceTiming;

  constructor(timing: ConformanceTiming = CONFORMANCE_TIMING) {
    this.#timing = timing;
  }

  async invoke(request: ModelRequest): Promise<ModelResponse> {
    const message = lastMessage(request.input);
    const messageId = message?.id ?? '';
    const behaviour = BEHAVIOURS.find(([prefix]) => messageId.startsWith(prefix))?.[1] ?? {
      text: `Unhandled messageId prefix: ${messageId}`,
    };
    await sleep(behaviour.long === true ? this.#timing.longMs : this.#timing.workMs);
    const ask = behaviour.ask;
    const participantId = message?.participantId;
    const toolCalls: ModelToolCall[] =
      ask === undefined || participantId === undefined
        ? []
        : [
            {
              id: `ask-${messageId}`,
              name: 'ask_participant',
              arguments: JSON.stringify({ participant_id: participantId, question: ask }),
            },
          ];
    // After a question, the tool's result comes back for one more turn: it says nothing more.
    const answered = request.input.at(-1)?.type === 'tool_result';
    return {
      text: toolCalls.length > 0 || answered ? '' : (behaviour.text ?? ''),
      toolCalls: answered ? [] : toolCalls,
      usage: usageOf(request),
      model: 'conformance',
      finishReason: toolCalls.length > 0 && !answered ? 'tool_calls' : 'stop',
    };
  }
}
