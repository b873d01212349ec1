import { type AgentCard, Extensions } from '@a2a-js/sdk';
import { A2aError } from './a2a-errors.js';

/**
 * The extensions a request activates (A2A §3.2.6): the URIs of its `A2A-Extensions` header. Every
 * one must be advertised on the card, else the request is refused with UnsupportedOperation
 * before anything is read or stored (no task is created for it); a card extension marked
 * `required` that the request does not name is ExtensionSupportRequired (§3.3.4). The harness
 * applies every advertised extension it is asked for, so the activated set is the requested one,
 * and the response echoes it in its own `A2A-Extensions` header.
 */
export const negotiateExtensions = (header: string | undefined, card: AgentCard): string[] => {
  const requested = Extensions.parseServiceParameter(header);
  const advertised = card.capabilities?.extensions ?? [];
  const known = new Set(advertised.map((extension) => extension.uri));
  const unknown = requested.filter((uri) => !known.has(uri));
  if (unknown.length > 0) {
    throw new A2aError(
      'UnsupportedOperation',
      `extension not supported by this agent: ${unknown.join(', ')}`
    );
  }
  const missing = advertised.filter(
    (extension) => extension.required && !requested.includes(extension.uri)
  );
  if (missing.length > 0) {
    throw new A2aError(
      'ExtensionSupportRequired',
      `the request must activate: ${missing.map((extension) => extension.uri).join(', ')}`
    );
  }
  return requested;
};
