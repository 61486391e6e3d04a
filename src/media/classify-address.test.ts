import { describe, expect, it } from 'vitest';
import { classifyAddress, type AddressClass } from './classify-address.js';

const cases: Array<{ input: string; want: AddressClass }> = [
  // public
  { input: '8.8.8.8', want: 'public' },
  { input: '93.184.216.34', want: 'public' },
  { input: '172.15.255.255', want: 'public' },
  { input: '172.32.0.1', want: 'public' },
  { input: '100.63.255.255', want: 'public' },
  { input: '100.128.0.0', want: 'public' },
  { input: '2607:f8b0:4004:800::200e', want: 'public' },
  { input: '2002:0808:0808::1', want: 'public' },
  { input: '[2606:4700::1111]', want: 'public' },
  // loopback
  { input: '127.0.0.1', want: 'loopback' },
  { input: '127.255.255.254', want: 'loopback' },
  { input: '::1', want: 'loopback' },
  { input: '[::1]', want: 'loopback' },
  { input: '0:0:0:0:0:0:0:1', want: 'loopback' },
  // private
  { input: '10.0.0.1', want: 'private' },
  { input: '10.255.255.255', want: 'private' },
  { input: '172.16.0.1', want: 'private' },
  { input: '172.31.255.255', want: 'private' },
  { input: '192.168.1.1', want: 'private' },
  { input: 'fc00::1', want: 'private' },
  { input: 'fd12:3456:789a::1', want: 'private' },
  { input: 'fec0::1', want: 'private' },
  // link-local
  { input: '169.254.0.1', want: 'link-local' },
  { input: 'fe80::1', want: 'link-local' },
  { input: 'fe80::1%eth0', want: 'link-local' },
  { input: 'febf::1', want: 'link-local' },
  // CGNAT
  { input: '100.64.0.1', want: 'cgnat' },
  { input: '100.127.255.255', want: 'cgnat' },
  // unspecified
  { input: '0.0.0.0', want: 'unspecified' },
  { input: '::', want: 'unspecified' },
  // multicast
  { input: '224.0.0.1', want: 'multicast' },
  { input: '239.255.255.250', want: 'multicast' },
  { input: 'ff02::1', want: 'multicast' },
  // metadata
  { input: '169.254.169.254', want: 'metadata' },
  { input: 'fd00:ec2::254', want: 'metadata' },
  // reserved
  { input: '0.1.2.3', want: 'reserved' },
  { input: '192.0.2.1', want: 'reserved' },
  { input: '198.18.0.1', want: 'reserved' },
  { input: '240.0.0.1', want: 'reserved' },
  { input: '255.255.255.255', want: 'reserved' },
  { input: '2001:db8::1', want: 'reserved' },
  { input: '2001:0:4136:e378::1', want: 'reserved' },
  { input: '100::1', want: 'reserved' },
  // IPv6 forms that carry an IPv4 address are judged by it
  { input: '::ffff:127.0.0.1', want: 'loopback' },
  { input: '::ffff:7f00:1', want: 'loopback' },
  { input: '::ffff:10.1.2.3', want: 'private' },
  { input: '::ffff:169.254.169.254', want: 'metadata' },
  { input: '::ffff:8.8.8.8', want: 'public' },
  { input: '::127.0.0.1', want: 'loopback' },
  { input: '64:ff9b::192.168.0.1', want: 'private' },
  { input: '64:ff9b::a9fe:a9fe', want: 'metadata' },
  { input: '64:ff9b::8.8.8.8', want: 'public' },
  { input: '64:ff9b:1::1', want: 'private' },
  { input: '2002:7f00:0001::1', want: 'loopback' },
  { input: '2002:c0a8:0101::1', want: 'private' },
  // not an address
  { input: 'example.com', want: 'invalid' },
  { input: '256.1.1.1', want: 'invalid' },
  { input: '1.2.3', want: 'invalid' },
  { input: '', want: 'invalid' },
];

describe('classifyAddress', () => {
  it.each(cases)('$input → $want', ({ input, want }) => {
    expect(classifyAddress(input)).toStrictEqual(want);
  });
});
