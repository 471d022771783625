import { describe, expect, it } from 'vitest';
import { addressKey } from './ip.js';

describe('addressKey: the key a per-address throttle counts an address under', () => {
  it('keeps an IPv4 address as it is', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('10.0.0.1')).toBe('10.0.0.1');
  });

  it('answers an IPv4-mapped IPv6 address as its IPv4 address, in any spelling', () => {
    expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('::FFFF:203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('::ffff:cb00:7107')).toBe('203.0.113.7');
    expect(addressKey('0:0:0:0:0:ffff:cb00:7107')).toBe('203.0.113.7');
  });

  it('answers any other IPv6 address as its /64 prefix, written canonically', () => {
    expect(addressKey('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:DB8:0001:0002:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8::1')).toBe('2001:db8::/64');
    expect(addressKey('2001:db8:0:0:1::1')).toBe('2001:db8::/64');
    expect(addressKey('fe80::1%eth0')).toBe('fe80::/64');
    expect(addressKey('::1')).toBe('::/64');
    // Neighbouring /64s stay apart.
    expect(addressKey('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(addressKey('2001:db8:1:2::1')).toBe(addressKey('2001:db8:1:2:abcd:ef01:2345:6789'));
    // IPv4-compatible and other IPv4-carrying forms are IPv6 addresses of their own.
    expect(addressKey('::1.2.3.4')).toBe('::/64');
  });

  it('keeps what is not an address as it is', () => {
    expect(addressKey('')).toBe('');
    expect(addressKey('not an address')).toBe('not an address');
  });
});
