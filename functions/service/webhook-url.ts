import { BlockList, isIP } from 'node:net';
import { A2aError } from './a2a-errors.js';

/** Loopback: allowed as a webhook only when the operator says so (local development). */
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/**
 * Addresses a webhook may never name: the agent would be calling into its own network (SSRF,
 * A2A §13.2). Private, shared, link-local (cloud metadata at 169.254.169.254), unspecified,
 * NAT64, benchmarking, documentation, multicast and reserved ranges, in both families.
 */
const NON_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, 'ipv6');
}

/** An IPv4 address written as IPv6 (`::ffff:a.b.c.d`, `::ffff:a00:1`): checked as the IPv4 one. */
const unmapped = (address: string): string => {
  const match = /^::ffff:(?:([0-9a-f]{1,4}):([0-9a-f]{1,4})|(\d+\.\d+\.\d+\.\d+))$/i.exec(address);
  if (match === null) return address;
  if (match[3] !== undefined) return match[3];
  const high = Number.parseInt(match[1] ?? '0', 16);
  const low = Number.parseInt(match[2] ?? '0', 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
};

const family = (address: string) => (isIP(address) === 6 ? 'ipv6' : 'ipv4');

const isLoopbackHost = (host: string): boolean => {
  if (isIP(host) === 0) return host === 'localhost' || host.endsWith('.localhost');
  return LOOPBACK.check(host, family(host));
};

export interface WebhookPolicy {
  /** `http` (and https) to loopback only, for a webhook on the developer's machine. */
  allowLoopback: boolean;
}

/**
 * Whether the agent may connect to this IP address: a public one, or loopback when the policy
 * allows it. Delivery asks this of every address a webhook's host resolves to, just before it
 * connects (the URL check below can only judge a name by its spelling). Not an IP: refused.
 */
export const isAllowedAddress = (address: string, policy: WebhookPolicy): boolean => {
  const ip = unmapped(address.toLowerCase());
  if (isIP(ip) === 0) return false;
  if (LOOPBACK.check(ip, family(ip))) return policy.allowLoopback;
  return !NON_PUBLIC.check(ip, family(ip));
};

const refuse = (why: string) => new A2aError('InvalidParams', `webhook url refused: ${why}`);

/**
 * A push-notification URL the agent may call: https to a public host, or (when the policy allows
 * it) http or https to loopback. Host names are judged by their spelling only: a name that
 * resolves to a private address passes here, so delivery checks the resolved address again
 * (`isAllowedAddress`) and connects to the address it checked, or a DNS rebinding would walk
 * around this check (functions/adapters/push/http-webhook-sender.ts).
 */
export const checkWebhookUrl = (raw: string, policy: WebhookPolicy): URL => {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refuse('not an absolute URL');
  }
  // Credentials belong in the config's token or authentication, never in a URL that gets logged.
  if (url.username !== '' || url.password !== '') throw refuse('the URL carries credentials');
  // The WHATWG parser has already normalised the host: `2130706433` and `0x7f.1` are 127.0.0.1.
  const host = unmapped(
    url.hostname
      .replace(/^\[|\]$/g, '')
      .replace(/\.$/, '')
      .toLowerCase()
  );
  const loopback = isLoopbackHost(host);
  if (loopback) {
    if (!policy.allowLoopback) throw refuse('loopback addresses are not allowed');
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw refuse('not http(s)');
    return url;
  }
  if (url.protocol !== 'https:') throw refuse('the scheme must be https');
  if (isIP(host) !== 0 && !isAllowedAddress(host, policy)) {
    throw refuse('private, link-local and reserved addresses are not allowed');
  }
  return url;
};
