import { describe, expect, it } from 'vitest';
import {
  classifyAddress,
  isAllowedAddress,
  webhookUrlRefusal,
} from '../../../functions/core/push/webhook-address.js';

const STRICT = { allowLoopback: false };
const LOCAL = { allowLoopback: true };

/**
 * Every IPv6 form that carries an IPv4 address is judged by the IPv4 address it carries (issue 9,
 * item 6), when a config is stored (the URL as a WHATWG parser normalised it) and when its host's
 * resolved addresses are dialled.
 */
describe('the webhook address policy', () => {
  it.each([
    // The four, and every other IPv4-carrying form, to loopback and private addresses.
    ['::127.0.0.1', 'IPv4-compatible loopback', 'non-public'],
    ['::7f00:1', 'IPv4-compatible loopback, as a URL parser writes it', 'non-public'],
    ['::ffff:0:7f00:1', 'IPv4-translated loopback', 'non-public'],
    ['::ffff:0:127.0.0.1', 'IPv4-translated loopback, dotted', 'non-public'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback', 'loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback, hex', 'loopback'],
    ['::ffff:10.0.0.1', 'IPv4-mapped private', 'non-public'],
    ['::ffff:a9fe:a9fe', 'IPv4-mapped metadata address', 'non-public'],
    ['::10.1.2.3', 'IPv4-compatible private', 'non-public'],
    ['2002:7f00:1::1', '6to4 of loopback', 'non-public'],
    ['2002:a00:1::', '6to4 of 10.0.0.1', 'non-public'],
    ['2002:a9fe:a9fe::1', '6to4 of the metadata address', 'non-public'],
    ['64:ff9b::7f00:1', 'NAT64 well-known of loopback', 'non-public'],
    ['64:ff9b::10.0.0.1', 'NAT64 well-known of a private address', 'non-public'],
    ['64:ff9b:1::a00:1', 'NAT64 local-use (any)', 'non-public'],
    ['64:ff9b:1:ffff::8.8.8.8', 'NAT64 local-use, even of a public address', 'non-public'],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'Teredo, client 127.0.0.1 (obfuscated)', 'non-public'],
    ['2001:0:a00:1::1:0', 'Teredo, server 10.0.0.1', 'non-public'],
    ['2001:db9::5efe:10.0.0.1', 'ISATAP of a private address', 'non-public'],
    ['2001:db9::200:5efe:c0a8:101', 'ISATAP (universal bit) of 192.168.1.1', 'non-public'],
    // Plain ranges, in both families.
    ['127.0.0.1', 'loopback', 'loopback'],
    ['127.255.0.9', 'loopback /8', 'loopback'],
    ['::1', 'IPv6 loopback', 'loopback'],
    ['[::1]', 'bracketed', 'loopback'],
    ['10.0.0.5', 'private', 'non-public'],
    ['169.254.169.254', 'link-local metadata', 'non-public'],
    ['100.64.0.1', 'shared', 'non-public'],
    ['0.0.0.0', 'this network', 'non-public'],
    ['255.255.255.255', 'broadcast', 'non-public'],
    ['::', 'unspecified', 'non-public'],
    ['fd00::1', 'unique-local', 'non-public'],
    ['fe80::1%eth0', 'link-local with a zone', 'non-public'],
    ['ff02::1', 'multicast', 'non-public'],
    ['2001:db8::1', 'documentation', 'non-public'],
    ['3fff::1', 'documentation (2024)', 'non-public'],
    // Public ones stay callable, the IPv4-carrying forms of public addresses included.
    ['93.184.215.14', 'public IPv4', 'public'],
    ['2606:4700::1111', 'public IPv6', 'public'],
    ['::ffff:8.8.8.8', 'IPv4-mapped public', 'public'],
    ['64:ff9b::8.8.8.8', 'NAT64 well-known of a public address (DNS64 networks)', 'public'],
    ['2002:808:808::1', '6to4 of a public address', 'public'],
  ])('%s (%s) is %s', (address, _, expected) => {
    expect(classifyAddress(address)).toBe(expected);
    expect(isAllowedAddress(address, STRICT)).toBe(expected === 'public');
  });

  it.each([
    'not-an-ip',
    '1.2.3',
    '256.1.1.1',
    '01.2.3.4',
    '1::2::3',
    '1:2:3:4:5:6:7:8:9',
    ':::',
    '',
  ])('refuses %j, which is no IP address', (text) => {
    expect(classifyAddress(text)).toBeUndefined();
    expect(isAllowedAddress(text, LOCAL)).toBe(false);
  });

  it('allows loopback only when the policy does, and never loopback carried through a translator or tunnel', () => {
    expect(isAllowedAddress('127.0.0.1', LOCAL)).toBe(true);
    expect(isAllowedAddress('::ffff:127.0.0.1', LOCAL)).toBe(true);
    expect(isAllowedAddress('::127.0.0.1', LOCAL)).toBe(false);
    expect(isAllowedAddress('::ffff:0:7f00:1', LOCAL)).toBe(false);
    expect(isAllowedAddress('2002:7f00:1::1', LOCAL)).toBe(false);
    expect(isAllowedAddress('64:ff9b::7f00:1', LOCAL)).toBe(false);
  });

  it.each([
    'https://[::127.0.0.1]/hook',
    'https://[::ffff:0:7f00:1]/hook',
    'https://[2002:7f00:1::1]/hook',
    'https://[64:ff9b:1::a00:1]/hook',
    'https://[::ffff:127.0.0.1]/hook',
    'https://[::ffff:a9fe:a9fe]/latest/meta-data',
    'https://[64:ff9b::a9fe:a9fe]/',
    'https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/',
    'https://[2001:db9::5efe:10.0.0.1]/',
    'https://2130706433/hook',
    'https://0x7f.1/hook',
    'https://localhost/hook',
    'https://a.localhost./hook',
    'https://10.0.0.5/hook',
  ])('refuses the webhook URL %s when a config is stored', (raw) => {
    expect(webhookUrlRefusal(new URL(raw), STRICT)).toEqual(expect.any(String));
  });

  it('refuses credentials in the URL and plain http to a public host, and passes https to a public one', () => {
    expect(webhookUrlRefusal(new URL('https://u:p@hooks.example.com/'), STRICT)).toMatch(
      /credentials/
    );
    expect(webhookUrlRefusal(new URL('http://hooks.example.com/'), STRICT)).toMatch(/https/);
    expect(webhookUrlRefusal(new URL('https://hooks.example.com/a2a'), STRICT)).toBeUndefined();
    expect(webhookUrlRefusal(new URL('https://[2606:4700::1111]/'), STRICT)).toBeUndefined();
    expect(webhookUrlRefusal(new URL('http://[::ffff:7f00:1]:8080/'), LOCAL)).toBeUndefined();
  });
});
