// fast-check arbitraries for hostile HTTP input (unicode edges, injection shapes, oversized and deeply nested values), and a raw sender.
import { request as httpRequest } from 'node:http';
import fc from 'fast-check';

/** Strings that have broken parsers, routers, SQL and templates somewhere before. */
export const nastyStrings = [
  '',
  ' ',
  '..',
  '../..',
  '../../admin/projections',
  '%',
  '%2e%2e%2f',
  '%00',
  ':',
  '::',
  '/',
  'a/b',
  'a:b:c',
  'agent:main:cli:dm:x',
  "' OR '1'='1' --",
  '"; DROP TABLE events; --',
  '$1',
  '${jndi:ldap://example.invalid/a}',
  '{{7*7}}',
  '<script>alert(1)</script>',
  '\u0000',
  'nul\u0000inside',
  '\u202eevil\u202c',
  '\u200f\u05e9\u05dc\u05d5\u05dd',
  '\ud800',
  '\udfff',
  'x\ud83dy',
  '🧨👩‍👩‍👧‍👦',
  '\ufeff',
  'ｆｕｌｌｗｉｄｔｈ',
  'e\u0301\u0301\u0301',
  'null',
  'undefined',
  'true',
  '__proto__',
  'constructor',
  'prototype',
  '-1',
  '0x10',
  '1e309',
  'NaN',
  '99999999999999999999999999',
  '2026-02-30T25:61:61Z',
  'x'.repeat(3000),
];

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...nastyStrings) },
  { weight: 3, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 200, maxLength: 2000 }) },
  { weight: 1, arbitrary: fc.stringMatching(/^[A-Za-z0-9_.:-]{1,20}$/) },
);

/** JSON values of every type, with nasty strings and numbers at the edges. */
export const hostileJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    hostileString,
    fc.constantFrom(null, true, false, 0, -1, 1.5, -0, 2 ** 53, -(2 ** 53) - 2, Number.MAX_VALUE, 1e-320),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(hostileString, tie('value'), { maxKeys: 5 }),
  ),
})).value;

/** `depth` levels of arrays or objects around a value, as JSON text (JSON.stringify would recurse as deep). */
export function deeplyNested(depth: number, kind: 'array' | 'object'): string {
  return kind === 'array' ? `${'['.repeat(depth)}1${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

/** Lone surrogates cannot be percent-encoded as UTF-8; encodeURIComponent throws on them. */
const wellFormed = (value: string) => value.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');

/** A path segment as a client might send it: encoded, double-encoded, raw, or with invalid UTF-8 percent-escapes. */
export function encodeSegment(value: string, style: 'encoded' | 'double' | 'raw' | 'badUtf8'): string {
  const encoded = encodeURIComponent(wellFormed(value));
  switch (style) {
    case 'encoded':
      return encoded;
    case 'double':
      return encodeURIComponent(encoded);
    case 'raw':
      // '/', '..' and ':' as they are; only what a request line cannot carry at all is escaped.
      return wellFormed(value).replace(/[^\x21-\x7e]|[#?%]/gu, (character) => encodeURIComponent(character));
    case 'badUtf8':
      // A lone surrogate, an overlong '/', a truncated sequence: bytes that are not UTF-8.
      return `${encoded}%ED%A0%80%C0%AF%E2%82`;
  }
}

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
  text: string;
}

/**
 * One request through node:http, which sends exactly the headers given: fetch adds a `text/plain` content type
 * to a string body, so a body with no content type at all needs this.
 */
export function sendRaw(url: string, method: string, options: { body?: string; headers?: Record<string, string> } = {}): Promise<RawAnswer> {
  const headers = { ...options.headers, ...(options.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(options.body)) }) };
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(url, { method, headers, timeout: 15_000 }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown;
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          body = undefined;
        }
        resolve({ status: response.statusCode!, headers: response.headers, body, text });
      });
      response.on('error', reject);
    });
    outgoing.on('timeout', () => outgoing.destroy(new Error('no answer within 15 s')));
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
}
