/**
 * Which addresses a push webhook may name (A2A §13.2: a webhook is a URL a client chooses, and the
 * agent calls it from inside its own network, so only public addresses are called). Pure: the
 * service checks a URL when a config is stored, and the webhook sender checks it again, and every
 * address its host resolves to, just before it connects.
 *
 * An IPv6 address may carry an IPv4 one inside it, and a network on the way may deliver it there:
 * IPv4-mapped (`::ffff:a.b.c.d`), IPv4-translated (`::ffff:0:a.b.c.d`), IPv4-compatible
 * (`::a.b.c.d`), NAT64 (`64:ff9b::a.b.c.d`, and the local-use `64:ff9b:1::/48`), 6to4
 * (`2002:aabb:ccdd::`), Teredo (`2001:0::/32`, server and obfuscated client) and ISATAP (an
 * interface id of `0:5efe:a.b.c.d`). Each is judged by the IPv4 address it carries.
 */

export interface WebhookPolicy {
  /** `http` (and https) to loopback only, for a webhook on the developer's machine. */
  allowLoopback: boolean;
}

export type AddressClass = 'public' | 'loopback' | 'non-public';

type Bytes = readonly number[];

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/** A dotted-quad IPv4 address (decimal, as URL parsers and resolvers write it), as 4 bytes. */
const parseIpv4 = (text: string): Bytes | undefined => {
  const match = IPV4.exec(text);
  if (match === null) return undefined;
  const bytes = match.slice(1).map(Number);
  return bytes.every((byte, index) => byte <= 255 && String(byte) === match[index + 1])
    ? bytes
    : undefined;
};

const groupsOf = (text: string): number[] | undefined => {
  if (text === '') return [];
  const groups: number[] = [];
  const parts = text.split(':');
  for (const [index, part] of parts.entries()) {
    const v4 = index === parts.length - 1 ? parseIpv4(part) : undefined;
    if (v4 !== undefined) {
      groups.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
      continue;
    }
    if (!/^[0-9a-f]{1,4}$/i.test(part)) return undefined;
    groups.push(Number.parseInt(part, 16));
  }
  return groups;
};

/** An IPv6 address (with `::`, an IPv4 tail, or a `%zone`), as 16 bytes. */
const parseIpv6 = (raw: string): Bytes | undefined => {
  const text = raw.replace(/%.*$/, '');
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const head = groupsOf(halves[0] ?? '');
  const tail = halves.length === 2 ? groupsOf(halves[1] ?? '') : [];
  if (head === undefined || tail === undefined) return undefined;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  const groups = [...head, ...new Array<number>(missing).fill(0), ...tail];
  return groups.flatMap((group) => [group >> 8, group & 255]);
};

/** `[network bytes, prefix length]`: whether `bytes` is in it. */
const inPrefix = (bytes: Bytes, network: Bytes, length: number): boolean => {
  for (let bit = 0; bit < length; bit++) {
    const mask = 128 >> (bit % 8);
    if (((bytes[bit >> 3] ?? 0) & mask) !== ((network[bit >> 3] ?? 0) & mask)) return false;
  }
  return true;
};

const v4 = (text: string) => parseIpv4(text) ?? [];
const v6 = (text: string) => parseIpv6(text) ?? [];

/**
 * IPv4 ranges that are not the public Internet: this network, private, shared (CGNAT),
 * link-local (cloud metadata at 169.254.169.254), IETF protocol assignments, documentation, the
 * 6to4 relay anycast, benchmarking, multicast, reserved and broadcast.
 */
const NON_PUBLIC_V4: ReadonlyArray<[Bytes, number]> = [
  [v4('0.0.0.0'), 8],
  [v4('10.0.0.0'), 8],
  [v4('100.64.0.0'), 10],
  [v4('169.254.0.0'), 16],
  [v4('172.16.0.0'), 12],
  [v4('192.0.0.0'), 24],
  [v4('192.0.2.0'), 24],
  [v4('192.88.99.0'), 24],
  [v4('192.168.0.0'), 16],
  [v4('198.18.0.0'), 15],
  [v4('198.51.100.0'), 24],
  [v4('203.0.113.0'), 24],
  [v4('224.0.0.0'), 4],
  [v4('240.0.0.0'), 4],
];

/**
 * IPv6 ranges that are not the public Internet (besides the IPv4-carrying forms below):
 * unspecified, discard-only, benchmarking, ORCHID, documentation (both), unique-local,
 * link-local, the deprecated site-local, multicast, and NAT64's local-use prefix (RFC 8215: a
 * network's own, which may lead anywhere inside it).
 */
const NON_PUBLIC_V6: ReadonlyArray<[Bytes, number]> = [
  [v6('::'), 128],
  [v6('100::'), 64],
  [v6('2001:2::'), 48],
  [v6('2001:10::'), 28],
  [v6('2001:20::'), 28],
  [v6('2001:db8::'), 32],
  [v6('3fff::'), 20],
  [v6('fc00::'), 7],
  [v6('fe80::'), 10],
  [v6('fec0::'), 10],
  [v6('ff00::'), 8],
  [v6('64:ff9b:1::'), 48],
];

const classifyV4 = (bytes: Bytes): AddressClass => {
  if (bytes[0] === 127) return 'loopback';
  return NON_PUBLIC_V4.some(([network, length]) => inPrefix(bytes, network, length))
    ? 'non-public'
    : 'public';
};

/**
 * The IPv4 addresses an IPv6 address carries, by form. An IPv4-mapped address is that IPv4
 * address on this host's own sockets (`same`). The others are reached through something that
 * delivers into wherever the IPv4 address is (`relayed`): a translator (IPv4-translated, NAT64),
 * a tunnel (IPv4-compatible, 6to4, Teredo, ISATAP).
 */
const embedded = (bytes: Bytes): { same?: Bytes; relayed: Bytes[] } => {
  const last4 = bytes.slice(12, 16);
  if (inPrefix(bytes, v6('::ffff:0:0'), 96)) return { same: last4, relayed: [] };
  const relayed: Bytes[] = [];
  if (inPrefix(bytes, v6('::ffff:0:0:0'), 96) || inPrefix(bytes, v6('::'), 96)) {
    relayed.push(last4);
  }
  if (inPrefix(bytes, v6('64:ff9b::'), 96)) relayed.push(last4);
  if (inPrefix(bytes, v6('2002::'), 16)) relayed.push(bytes.slice(2, 6));
  if (inPrefix(bytes, v6('2001::'), 32)) {
    relayed.push(
      bytes.slice(4, 8),
      last4.map((byte) => byte ^ 255)
    );
  }
  // ISATAP's interface id: 0000:5efe (or 0200:5efe, with the universal/local bit) then IPv4.
  if ((bytes[8]! & 0xfc) === 0 && bytes[9] === 0 && bytes[10] === 0x5e && bytes[11] === 0xfe) {
    relayed.push(last4);
  }
  return { relayed };
};

const classifyV6 = (bytes: Bytes): AddressClass => {
  if (inPrefix(bytes, v6('::1'), 128)) return 'loopback';
  if (NON_PUBLIC_V6.some(([network, length]) => inPrefix(bytes, network, length))) {
    return 'non-public';
  }
  const carried = embedded(bytes);
  if (carried.same !== undefined) return classifyV4(carried.same);
  // Through a translator or tunnel, even loopback is another host's: only a public one passes.
  return carried.relayed.every((address) => classifyV4(address) === 'public')
    ? 'public'
    : 'non-public';
};

/** What an IP address is (either family, IPv6 with or without brackets), or undefined. */
export const classifyAddress = (address: string): AddressClass | undefined => {
  const text = address
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '');
  const four = parseIpv4(text);
  if (four !== undefined) return classifyV4(four);
  const six = text.includes(':') ? parseIpv6(text) : undefined;
  return six === undefined ? undefined : classifyV6(six);
};

/**
 * Whether the agent may connect to this IP address: a public one, or loopback when the policy
 * allows it. Not an IP address: refused.
 */
export const isAllowedAddress = (address: string, policy: WebhookPolicy): boolean => {
  const kind = classifyAddress(address);
  if (kind === 'loopback') return policy.allowLoopback;
  return kind === 'public';
};

/** The parts of a parsed URL the check reads (a WHATWG `URL` has them). */
export interface WebhookUrlParts {
  protocol: string;
  hostname: string;
  username: string;
  password: string;
}

/**
 * Why a push-notification URL may not be called, or undefined when it may: https to a public
 * host, or (when the policy allows it) http or https to loopback. Give it the URL as a WHATWG
 * parser normalised it (`2130706433` and `0x7f.1` are then 127.0.0.1). A host name is judged by
 * its spelling only: one that resolves to a private address passes here, so the sender checks
 * the resolved addresses again and connects to one it checked.
 */
export const webhookUrlRefusal = (
  url: WebhookUrlParts,
  policy: WebhookPolicy
): string | undefined => {
  // Credentials belong in the config's token or authentication, never in a URL that gets logged.
  if (url.username !== '' || url.password !== '') return 'the URL carries credentials';
  const host = url.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  const kind = classifyAddress(host);
  const loopback =
    kind === 'loopback' ||
    (kind === undefined && (host === 'localhost' || host.endsWith('.localhost')));
  if (loopback) {
    if (!policy.allowLoopback) return 'loopback addresses are not allowed';
    return url.protocol === 'https:' || url.protocol === 'http:' ? undefined : 'not http(s)';
  }
  if (url.protocol !== 'https:') return 'the scheme must be https';
  if (kind === 'non-public') {
    return 'private, link-local and reserved addresses (in any IPv6 form) are not allowed';
  }
  return undefined;
};
