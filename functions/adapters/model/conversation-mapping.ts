import { ModelFailedError } from '../../core/errors.js';
import type { ModelInputItem, ModelUsage, ToolDefinition } from '../../core/ports/model.js';
import type { ReasoningEffort } from '../../core/task/extension.schema.js';
import { THINKING_BUDGET_TOKENS } from './reasoning.js';
import { ToolNameCodec } from './tool-names.js';

/**
 * The conversation shape the Anthropic Messages API and Bedrock Converse share: strictly
 * alternating user/assistant turns of content blocks, where every `tool_use` of an assistant turn
 * is answered by a `tool_result` in the very next user turn, results first. Each adapter renders
 * these blocks in its own wire format.
 */
export type ConversationBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'tool_result'; id: string; output: string };

export interface ConversationTurn {
  role: 'user' | 'assistant';
  blocks: ConversationBlock[];
}

/** The request's tool-name codec; two names that encode alike fail the call (not retried). */
export const toolCodec = (provider: string, tools: readonly ToolDefinition[]): ToolNameCodec => {
  try {
    return new ToolNameCodec(tools.map((tool) => tool.name));
  } catch (error) {
    throw new ModelFailedError(`${provider}: ${(error as Error).message}`, { cause: error });
  }
};

/** Placeholder for a call with no recorded result (both APIs reject an unanswered tool_use). */
export const MISSING_RESULT = '(no result was recorded for this tool call)';
/** Opening user turn when the input starts with the assistant (Converse rejects that). */
export const CONTINUED = '(conversation continues)';

/**
 * Tool arguments as the object both APIs require. The model produced them as JSON text; text that
 * is not a JSON object (the invoker already answered it with `tool.invalid_arguments`) is sent
 * back as `{}`, since neither API can carry the raw text in a `tool_use`.
 */
export const parseToolInput = (text: string): Record<string, unknown> => {
  try {
    const value: unknown = JSON.parse(text);
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      return value as Record<string, unknown>;
    }
  } catch {
    // not JSON: fall through
  }
  return {};
};

const toBlock = (item: ModelInputItem, codec: ToolNameCodec): ConversationTurn | undefined => {
  switch (item.type) {
    case 'message':
      // Both APIs reject empty text blocks.
      return item.text.trim() === ''
        ? undefined
        : { role: item.role, blocks: [{ type: 'text', text: item.text }] };
    case 'tool_call':
      return {
        role: 'assistant',
        blocks: [
          {
            type: 'tool_use',
            id: item.callId,
            name: codec.encode(item.name),
            input: parseToolInput(item.arguments),
          },
        ],
      };
    case 'tool_result':
      return {
        role: 'user',
        blocks: [{ type: 'tool_result', id: item.callId, output: item.output || '(empty)' }],
      };
  }
};

/** Consecutive same-role items merged into one turn: both APIs require alternation. */
const mergeRoles = (turns: readonly ConversationTurn[]): ConversationTurn[] => {
  const merged: ConversationTurn[] = [];
  for (const turn of turns) {
    const last = merged.at(-1);
    if (last?.role === turn.role) last.blocks.push(...turn.blocks);
    else merged.push({ role: turn.role, blocks: [...turn.blocks] });
  }
  return merged;
};

const toolUseIds = (turn: ConversationTurn | undefined): Set<string> =>
  new Set(
    turn?.role === 'assistant'
      ? turn.blocks.flatMap((block) => (block.type === 'tool_use' ? [block.id] : []))
      : []
  );

/**
 * Makes each user turn answer the assistant turn before it: its tool results come first (a
 * participant message that arrived while tools ran is moved after them), a result whose call is
 * not in the previous turn (compacted away) becomes plain text, and a call with no result gets a
 * placeholder result.
 */
const pairToolResults = (turns: ConversationTurn[]): ConversationTurn[] => {
  const paired: ConversationTurn[] = [];
  for (const [index, turn] of turns.entries()) {
    if (turn.role === 'assistant') {
      paired.push(turn);
      const calls = toolUseIds(turn);
      // An assistant turn with calls and no user turn after it: answer the calls.
      if (calls.size > 0 && turns[index + 1] === undefined) {
        paired.push({
          role: 'user',
          blocks: [...calls].map((id) => ({ type: 'tool_result', id, output: MISSING_RESULT })),
        });
      }
      continue;
    }
    const calls = toolUseIds(turns[index - 1]);
    const results: ConversationBlock[] = [];
    const rest: ConversationBlock[] = [];
    for (const block of turn.blocks) {
      if (block.type !== 'tool_result') rest.push(block);
      else if (calls.delete(block.id)) results.push(block);
      else rest.push({ type: 'text', text: `Result of tool call ${block.id}:\n${block.output}` });
    }
    const missing: ConversationBlock[] = [...calls].map((id) => ({
      type: 'tool_result',
      id,
      output: MISSING_RESULT,
    }));
    paired.push({ role: 'user', blocks: [...results, ...missing, ...rest] });
  }
  if (paired[0]?.role === 'assistant') {
    paired.unshift({ role: 'user', blocks: [{ type: 'text', text: CONTINUED }] });
  }
  return paired;
};

/**
 * The per-turn input as alternating turns. Tool names are encoded with the request's codec so a
 * call in the history names the tool as it was offered.
 */
export const toConversation = (
  input: readonly ModelInputItem[],
  codec: ToolNameCodec
): ConversationTurn[] =>
  pairToolResults(
    mergeRoles(
      input.flatMap((item) => {
        const turn = toBlock(item, codec);
        return turn === undefined ? [] : [turn];
      })
    )
  );

/**
 * Whether the request continues a tool-use loop: the last assistant turn called tools. With
 * extended thinking on, such a request must echo that turn's signed thinking blocks, which the
 * model port does not carry; adapters send these requests without thinking (the thinking budget
 * applies to the first model call of each user turn).
 */
export const continuesToolUse = (turns: readonly ConversationTurn[]): boolean => {
  const lastAssistant = turns.findLast((turn) => turn.role === 'assistant');
  return lastAssistant?.blocks.some((block) => block.type === 'tool_use') ?? false;
};

/**
 * Usage in the port's terms from a provider that reports uncached input, cache reads and cache
 * writes as three disjoint counts (Anthropic, Bedrock): `inputTokens` is the whole prompt (the
 * loop sizes the context window from it), `cachedInputTokens` the part read from the cache.
 */
export const splitCacheUsage = (counts: {
  uncached: number | null | undefined;
  cacheRead: number | null | undefined;
  cacheWrite: number | null | undefined;
  output: number | null | undefined;
}): ModelUsage => {
  const cached = counts.cacheRead ?? 0;
  return {
    inputTokens: (counts.uncached ?? 0) + cached + (counts.cacheWrite ?? 0),
    cachedInputTokens: cached,
    outputTokens: counts.output ?? 0,
  };
};

/**
 * An extended-thinking budget for an effort, and the `max_tokens` that leaves the configured
 * output limit on top of it (both APIs require `max_tokens` > `budget_tokens`).
 */
export const thinkingBudget = (
  effort: ReasoningEffort,
  maxOutputTokens: number
): { budgetTokens: number; maxTokens: number } => {
  const budgetTokens = THINKING_BUDGET_TOKENS[effort];
  return { budgetTokens, maxTokens: budgetTokens + maxOutputTokens };
};
