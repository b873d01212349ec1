/**
 * The audit extension's timeline (docs/a2a/audit.md), as a renderer asks for it, and the figures
 * a reader wants from it: what the tree cost, by kind of entry.
 */
import type { AgentCard } from '@a2a-js/sdk';
import { AUDIT_EXTENSION_URI, AUDIT_JSON_RPC_METHOD } from '../core/audit/identifiers.js';
import type { Timeline, TimelineEntry } from '../core/audit/timeline.schema.js';

export type { Timeline, TimelineEntry };

/** A failure the user can act on, said in their terms (the agent's own error message). */
export class AgentError extends Error {
  override readonly name = 'AgentError';
}

export const offersTimeline = (card: AgentCard) =>
  card.capabilities?.extensions.some((extension) => extension.uri === AUDIT_EXTENSION_URI) ===
    true && card.supportedInterfaces.some((i) => i.protocolBinding === 'JSONRPC');

/** GetTaskTimeline over JSON-RPC, parsed by the caller's validator of the published schema. */
export const fetchTimeline = async (options: {
  fetch: typeof fetch;
  card: AgentCard;
  taskId: string;
  subTasks: boolean;
  parse: (raw: unknown) => Timeline;
}): Promise<Timeline> => {
  const { card, taskId } = options;
  const jsonRpc = card.supportedInterfaces.find((i) => i.protocolBinding === 'JSONRPC');
  if (!offersTimeline(card) || jsonRpc === undefined) {
    throw new AgentError(`${card.name} does not offer the tiny-harness audit extension`);
  }
  const response = await options.fetch(jsonRpc.url, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      'A2A-Version': '1.0',
      'A2A-Extensions': AUDIT_EXTENSION_URI,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: AUDIT_JSON_RPC_METHOD,
      params: { id: taskId, subTasks: options.subTasks },
    }),
  });
  const body = (await response.json().catch(() => ({
    error: { code: response.status, message: `HTTP ${response.status}` },
  }))) as { result?: unknown; error?: { code: number; message: string } };
  if (body.error !== undefined) throw new AgentError(`${body.error.message} (${taskId})`);
  return options.parse(body.result);
};

export interface TimelineTotals {
  model_calls: number;
  tool_calls: number;
  input_tokens: number;
  cached_input_tokens: number;
  output_tokens: number;
  /** At TINY_HARNESS_MODEL_PRICES; a model with no price there costs 0. */
  cost_usd: number;
}

const numberOf = (value: unknown) => (typeof value === 'number' ? value : 0);

/** What the entries (of the whole tree, or a filtered part) add up to. */
export const timelineTotals = (entries: readonly TimelineEntry[]): TimelineTotals => {
  const totals: TimelineTotals = {
    model_calls: 0,
    tool_calls: 0,
    input_tokens: 0,
    cached_input_tokens: 0,
    output_tokens: 0,
    cost_usd: 0,
  };
  for (const entry of entries) {
    if (entry.kind === 'tool_call') totals.tool_calls++;
    if (entry.kind !== 'model_call') continue;
    const details = entry.details;
    totals.model_calls++;
    totals.input_tokens += numberOf(details.input_tokens);
    totals.cached_input_tokens += numberOf(details.cached_input_tokens);
    totals.output_tokens += numberOf(details.output_tokens);
    totals.cost_usd += numberOf(details.cost_usd);
  }
  return totals;
};
