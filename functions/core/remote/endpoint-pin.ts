import * as z from 'zod';
import { classifyAddress } from '../push/webhook-address.js';

/**
 * Where a remote agent's card may send us: only back to the origin the card was read from, and
 * over https. A card is the agent's to write, and every call to the interface it names carries
 * our credentials for that agent: a card naming another host (a metadata address, an internal
 * service, a plain-http endpoint) would hand them to it. The card URL is the operator's choice,
 * checked by configuration (a deployment takes https only); the endpoint is held to it here.
 */

export interface EndpointPolicy {
  /**
   * http to loopback, for two `npm start`s on one machine: an http card on loopback may name an
   * http endpoint of its own origin (TINY_HARNESS_ALLOW_LOOPBACK_WEBHOOKS).
   */
  allowLoopback: boolean;
}

/** The card's address and the policy its endpoints are held to. */
export interface EndpointPin extends EndpointPolicy {
  cardUrl: string;
}

/** A WHATWG parser's normal form: lower-case scheme and host, default port dropped, IDN in ASCII. */
const NormalUrl = z.url({ protocol: /^https?$/, normalize: true });

/** In a normalized href the userinfo holds no unescaped `/` or `@`, so the host ends at `/`. */
const ORIGIN = /^(https?):\/\/(?:[^@/]*@)?([^/?#]+)/;

interface Origin {
  origin: string;
  scheme: 'http' | 'https';
  hostname: string;
}

const originOf = (url: string): Origin | undefined => {
  const parsed = NormalUrl.safeParse(url);
  const match = parsed.success ? ORIGIN.exec(parsed.data) : null;
  if (match === null) return undefined;
  const [, scheme, host = ''] = match;
  // `[::1]:8080` → `::1`; `127.0.0.1:8080` → `127.0.0.1`.
  const hostname = host.startsWith('[')
    ? host.slice(1, host.indexOf(']'))
    : host.replace(/:\d+$/, '');
  return { origin: `${scheme}://${host}`, scheme: scheme as Origin['scheme'], hostname };
};

const isLoopback = (hostname: string): boolean =>
  classifyAddress(hostname) === 'loopback' ||
  hostname === 'localhost' ||
  hostname.endsWith('.localhost');

/**
 * Why the harness will not call `endpoint` for the card read from `pin.cardUrl`, or undefined
 * when it will: the same origin as the card (scheme, host and port), and https, or http to
 * loopback when the policy allows loopback.
 */
export const endpointRefusal = (endpoint: string, pin: EndpointPin): string | undefined => {
  const card = originOf(pin.cardUrl);
  const target = originOf(endpoint);
  if (card === undefined) return 'the card URL is not an http(s) URL';
  if (target === undefined) return 'not an http(s) URL';
  if (target.origin !== card.origin) return `not at the card's origin (${card.origin})`;
  if (target.scheme === 'https') return undefined;
  if (!isLoopback(target.hostname)) return 'plain http (https only)';
  return pin.allowLoopback
    ? undefined
    : 'plain http to loopback, which only TINY_HARNESS_ALLOW_LOOPBACK_WEBHOOKS=true allows';
};
