/** The Host/Origin rule itself, case by case (test/testing/host-rule.test.ts drives it over HTTP). */
import { describe, expect, it } from 'vitest';
import { HostRule } from '../../src/testing/node/host-rule.js';

const HOST_REFUSED =
  'This sandbox answers only requests to localhost, a loopback address or a name in its allowedHosts option';
const CROSS_REFUSED =
  'This sandbox refuses requests that web pages of other origins make: open its own pages instead';

const rule = new HostRule();
const verdict = (r: HostRule, method: string, headers: Record<string, string>) => {
  const refusal = r.refusal(method, headers);
  return refusal && [refusal.status, refusal.code, refusal.message];
};

describe('HostRule', () => {
  it.each([
    '127.0.0.1',
    '127.0.0.1:4010',
    '127.9.8.7:1',
    'localhost',
    'LOCALHOST:80',
    'a.localhost',
    'a.b.localhost:3000',
    '[::1]',
    '[::1]:4010',
  ])('serves Host %s', (host) => {
    expect(rule.refusal('GET', { host })).toBeUndefined();
  });

  it.each([
    'example.test',
    'localhost.example.test',
    'notlocalhost',
    'xlocalhost',
    '10.0.0.1',
    '[::2]',
    'a@127.0.0.1',
    '127.0.0.1 ',
    '127.0.0.1:99999999',
    '127.0.0.1:',
    '127.0.0.1/x',
    '127.0.0.1:99999',
    '[1:2:3:4:5:6:7:8:9]',
    '',
  ])('refuses Host %j', (host) => {
    expect(verdict(rule, 'GET', { host })).toEqual([403, 'host_not_allowed', HOST_REFUSED]);
  });

  it('refuses a request with no Host at all', () => {
    expect(verdict(rule, 'GET', {})).toEqual([403, 'host_not_allowed', HOST_REFUSED]);
  });

  it('serves allowedHosts: a name exactly (any case), a leading dot for a domain and its names', () => {
    const named = new HostRule([' Sandbox.Test ', '.corp.test']);
    for (const host of [
      'sandbox.test',
      'SANDBOX.test:9',
      'corp.test',
      'a.corp.test',
      'x.y.corp.test:1',
      'localhost',
    ]) {
      expect(named.refusal('GET', { host }), host).toBeUndefined();
    }
    for (const host of ['a.sandbox.test', 'xcorp.test', 'corp.test.evil', 'other.test']) {
      expect(verdict(named, 'GET', { host }), host).toEqual([403, 'host_not_allowed', HOST_REFUSED]);
    }
  });

  it('serves any Host with allowedHosts: true, still refusing other origins', () => {
    const any = new HostRule(true);
    expect(any.refusal('GET', { host: 'anything.example' })).toBeUndefined();
    expect(any.refusal('GET', {})).toBeUndefined();
    expect(verdict(any, 'POST', { host: 'x', origin: 'http://y' })).toEqual([
      403,
      'cross_origin',
      CROSS_REFUSED,
    ]);
  });

  it('serves its own origin, and requests without browser headers', () => {
    const host = '127.0.0.1:4010';
    expect(rule.refusal('POST', { host, origin: 'http://127.0.0.1:4010' })).toBeUndefined();
    expect(rule.refusal('POST', { host: 'LocalHost:4010', origin: 'http://localhost:4010' })).toBeUndefined();
    expect(rule.refusal('POST', { host, 'sec-fetch-site': 'same-origin' })).toBeUndefined();
    expect(rule.refusal('GET', { host, 'sec-fetch-site': 'none' })).toBeUndefined();
    expect(rule.refusal('DELETE', { host })).toBeUndefined();
  });

  it.each([
    ['POST', { origin: 'http://attacker.example' }],
    ['POST', { origin: 'null' }],
    ['POST', { origin: 'https://127.0.0.1:4010' }],
    ['POST', { origin: 'http://127.0.0.1:4011' }],
    ['GET', { origin: 'http://attacker.example' }],
    ['POST', { 'sec-fetch-site': 'cross-site' }],
    ['POST', { 'sec-fetch-site': 'same-site' }],
    ['GET', { 'sec-fetch-site': 'cross-site' }],
    ['GET', { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors' }],
    ['GET', { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors' }],
    ['POST', { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' }],
    ['POST', { origin: 'http://attacker.example', 'sec-fetch-mode': 'navigate' }],
  ])('refuses %s %j as cross-origin', (method, headers) => {
    expect(verdict(rule, method, { host: '127.0.0.1:4010', ...headers })).toEqual([
      403,
      'cross_origin',
      CROSS_REFUSED,
    ]);
  });

  it('follows a link from elsewhere to a page (a GET navigation changes nothing)', () => {
    expect(
      rule.refusal('GET', {
        host: '127.0.0.1:4010',
        'sec-fetch-site': 'cross-site',
        'sec-fetch-mode': 'navigate',
      }),
    ).toBeUndefined();
    expect(
      rule.refusal('get', {
        host: '127.0.0.1:4010',
        'sec-fetch-site': 'same-site',
        'sec-fetch-mode': 'navigate',
      }),
    ).toBeUndefined();
  });
});
