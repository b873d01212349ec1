import * as z from 'zod';
import { TASK_EXTENSION_URI } from '../a2a/identifiers.js';
import { type EndpointPin, endpointRefusal } from './endpoint-pin.js';

/** The bindings the harness calls a remote agent over, in no order of its own: the card's wins. */
export const CALLABLE_BINDINGS = ['JSONRPC', 'HTTP+JSON'] as const;
export type CallableBinding = (typeof CALLABLE_BINDINGS)[number];

/** A2A 1.0, as an interface declares it (`1.0`, or a patch release of it). */
const VERSION_1_0 = /^1\.0(\.\d+)?$/;

const HttpUrl = z.url({ protocol: /^https?$/ });

/**
 * The parts of an agent card (A2A §4.4.1, ProtoJSON) the harness reads, and the A2A 0.3 fields
 * it reads only to say what such a card offers. Anything else on the card is left alone.
 */
const CardSchema = z.object({
  name: z.string().optional(),
  supportedInterfaces: z
    .array(
      z.object({
        url: z.string(),
        protocolBinding: z.string(),
        protocolVersion: z.string().optional(),
        tenant: z.string().optional(),
      })
    )
    .optional(),
  capabilities: z
    .object({
      pushNotifications: z.boolean().optional(),
      extensions: z
        .array(z.object({ uri: z.string(), params: z.record(z.string(), z.unknown()).optional() }))
        .optional(),
    })
    .optional(),
  // A2A 0.3: one URL, a preferred transport, a protocol version for the whole card.
  protocolVersion: z.string().optional(),
  url: z.string().optional(),
  preferredTransport: z.string().optional(),
  additionalInterfaces: z.array(z.object({ url: z.string(), transport: z.string() })).optional(),
});

/** The interface of a remote agent the harness calls, and what its card says it can do. */
export interface RemoteCard {
  name: string;
  url: string;
  binding: CallableBinding;
  version: string;
  tenant: string;
  /** The card offers push notifications (`capabilities.pushNotifications`). */
  push: boolean;
  /** The agent speaks the tiny-harness task extension: a brief may carry a task envelope. */
  taskExtension: boolean;
}

export type CardChoice = { ok: true; card: RemoteCard } | { ok: false; reason: string };

type Interface = NonNullable<z.infer<typeof CardSchema>['supportedInterfaces']>[number];

/** An A2A 1.0 interface over a binding the harness calls, at an http(s) URL. */
const speaks = (entry: Interface): boolean =>
  (CALLABLE_BINDINGS as readonly string[]).includes(entry.protocolBinding.toUpperCase()) &&
  VERSION_1_0.test(entry.protocolVersion ?? '') &&
  HttpUrl.safeParse(entry.url).success;

/** What the card offers, each interface it speaks but may not call with why. */
const offered = (card: z.infer<typeof CardSchema>, pin: EndpointPin): string[] => {
  const offers = (card.supportedInterfaces ?? []).map((entry) => {
    const refusal = speaks(entry) ? endpointRefusal(entry.url, pin) : undefined;
    return `A2A ${entry.protocolVersion || '(no version)'} over ${entry.protocolBinding} at ${entry.url}${refusal === undefined ? '' : ` (refused: ${refusal})`}`;
  });
  if (card.protocolVersion !== undefined || card.url !== undefined) {
    offers.push(
      `A2A ${card.protocolVersion ?? '0.3'} over ${card.preferredTransport ?? 'JSONRPC'} at ${card.url ?? '(no url)'}`,
      ...(card.additionalInterfaces ?? []).map(
        (entry) => `A2A ${card.protocolVersion ?? '0.3'} over ${entry.transport} at ${entry.url}`
      )
    );
  }
  return offers;
};

/**
 * The interface the harness calls a remote agent over: the first of the card's
 * `supportedInterfaces` (the agent's own order of preference, §4.4.6) that is A2A 1.0 over
 * JSON-RPC or HTTP+JSON at the card's own origin over https (`endpointRefusal`: our credentials
 * go nowhere else). A card with none is refused with what it does offer, and why an interface it
 * speaks is refused, so the person configuring it reads why.
 */
export const chooseInterface = (raw: unknown, pin: EndpointPin): CardChoice => {
  const parsed = CardSchema.safeParse(raw);
  if (!parsed.success) {
    return { ok: false, reason: 'its card is not an A2A agent card (not a JSON object)' };
  }
  const card = parsed.data;
  const chosen = (card.supportedInterfaces ?? []).find(
    (entry) => speaks(entry) && endpointRefusal(entry.url, pin) === undefined
  );
  if (chosen === undefined) {
    const offers = offered(card, pin);
    return {
      ok: false,
      reason: `its card offers ${offers.length > 0 ? offers.join('; ') : 'no interface'}; tiny-harness calls A2A 1.0 over JSONRPC or HTTP+JSON`,
    };
  }
  const extensions = card.capabilities?.extensions ?? [];
  return {
    ok: true,
    card: {
      name: card.name ?? '',
      url: chosen.url,
      binding: chosen.protocolBinding.toUpperCase() as CallableBinding,
      version: chosen.protocolVersion ?? '1.0',
      tenant: chosen.tenant ?? '',
      push: card.capabilities?.pushNotifications === true,
      taskExtension: extensions.some((extension) => extension.uri === TASK_EXTENSION_URI),
    },
  };
};
