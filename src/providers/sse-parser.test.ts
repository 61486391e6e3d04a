import { describe, expect, it } from 'vitest';
import { UpstreamError } from '../errors.js';
import { SseParser } from './sse-parser.js';

function parseAll(pieces: string[]): string[] {
  const parser = new SseParser();
  const out: string[] = [];
  for (const p of pieces) out.push(...parser.push(Buffer.from(p)));
  out.push(...parser.end());
  return out;
}

const body = 'data: {"a":1}\r\n\r\ndata: {"b":2}\r\n\r\n';

describe('SseParser', () => {
  it.each([
    { name: 'CRLF events in one piece', pieces: [body], want: ['{"a":1}', '{"b":2}'] },
    { name: 'LF events', pieces: ['data: 1\n\ndata: 2\n\n'], want: ['1', '2'] },
    { name: 'CR events', pieces: ['data: 1\r\rdata: 2\r\r'], want: ['1', '2'] },
    { name: 'split between CR and LF', pieces: ['data: {"a":1}\r', '\n\r', '\ndata: {"b":2}\r\n\r\n'], want: ['{"a":1}', '{"b":2}'] },
    { name: 'split one character at a time', pieces: body.split(''), want: ['{"a":1}', '{"b":2}'] },
    { name: 'split inside the payload', pieces: ['data: {"a', '":1}\n', '\n'], want: ['{"a":1}'] },
    { name: 'comments and other fields ignored', pieces: [': ping\nevent: x\nid: 3\ndata: 1\n\n'], want: ['1'] },
    { name: 'multi-line data joined', pieces: ['data: a\ndata: b\n\n'], want: ['a\nb'] },
    { name: 'last event without blank line', pieces: ['data: 1\n\ndata: 2'], want: ['1', '2'] },
    { name: 'no space after colon', pieces: ['data:1\n\n'], want: ['1'] },
  ])('$name', ({ pieces, want }) => {
    expect(parseAll(pieces)).toStrictEqual(want);
  });
});

describe('SseParser on OpenAI-style streams', () => {
  it.each([
    { name: 'one event per push', pieces: ['data: {"a":1}\n\n'], want: ['{"a":1}'] },
    { name: 'split across pushes', pieces: ['da', 'ta: {"a"', ':1}\n', '\n'], want: ['{"a":1}'] },
    { name: 'CRLF line ends', pieces: ['data: x\r\n\r\ndata: y\r\n\r\n'], want: ['x', 'y'] },
    { name: 'no space after colon', pieces: ['data:x\n\n'], want: ['x'] },
    { name: 'multi-line data', pieces: ['data: a\ndata: b\n\n'], want: ['a\nb'] },
    { name: 'comments and other fields ignored', pieces: [': ping\n\nevent: message\nid: 1\ndata: x\n\n'], want: ['x'] },
    { name: 'no trailing blank line (flushed at end)', pieces: ['data: [DONE]'], want: ['[DONE]'] },
  ])('$name', ({ pieces, want }) => {
    const parser = new SseParser();
    const out = pieces.flatMap((p) => parser.push(Buffer.from(p)));
    expect([...out, ...parser.end()]).toStrictEqual(want);
  });
});

describe('SseParser on bytes', () => {
  it('decodes a UTF-8 character split across chunks', () => {
    const bytes = Buffer.from('data: {"t":"héllo 🌍"}\n\n');
    const at = bytes.indexOf(0xf0) + 2; // inside the 4-byte emoji
    const parser = new SseParser();
    const out = [...parser.push(bytes.subarray(0, at)), ...parser.push(bytes.subarray(at)), ...parser.end()];
    expect(out).toStrictEqual(['{"t":"héllo 🌍"}']);
  });

  it('scans each byte a bounded number of times: a 16 MB event in 64 KB chunks', () => {
    // Linearity without a clock: the old parser rescanned its growing buffer on every chunk
    // (~256 chunks × 8 MB on average ≈ 2 GB examined); a linear one examines each byte at most
    // twice (once looking for LF, once for CR).
    const payload = `{"text":"${'x'.repeat(16 * 1024 * 1024)}"}`;
    const body = Buffer.from(`data: ${payload}\r\n\r\n`);
    const parser = new SseParser({ maxEventBytes: 32 * 1024 * 1024 });
    const out: string[] = [];
    for (let at = 0; at < body.length; at += 64 * 1024) out.push(...parser.push(body.subarray(at, at + 64 * 1024)));
    out.push(...parser.end());
    expect(out).toHaveLength(1);
    expect(out[0]!.length).toBe(payload.length);
    expect(parser.bytesScanned).toBeLessThanOrEqual(2 * body.length);
  });

  it('scans many short lines linearly too (an LF far away is not searched for again per line)', () => {
    const body = Buffer.from('data: 1\r\r'.repeat(50_000) + 'data: end\n\n');
    const parser = new SseParser();
    const out = parser.push(body);
    expect(out).toHaveLength(50_001);
    expect(parser.bytesScanned).toBeLessThanOrEqual(2 * body.length);
  });

  it('refuses an event over the cap as soon as the cap is crossed, with a 502 naming the setting', () => {
    const parser = new SseParser({ maxEventBytes: 1000 });
    expect(parser.push(Buffer.from('data: small\n\n'))).toStrictEqual(['small']);
    parser.push(Buffer.from('data: ' + 'a'.repeat(900)));
    let caught: unknown;
    try {
      parser.push(Buffer.from('a'.repeat(200))); // no line end yet: refused before the line is complete
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(UpstreamError);
    expect((caught as UpstreamError).status).toBe(502);
    expect((caught as UpstreamError).reason).toBe('event_too_large');
    expect((caught as UpstreamError).message).toMatch(/larger than 1000 bytes \(SIDEGATE_MAX_UPSTREAM_EVENT_BYTES\)/);
  });

  it('counts every line of one event toward the cap, and starts again after a blank line', () => {
    const line = `data: ${'b'.repeat(94)}\n`; // 101 bytes
    const ok = new SseParser({ maxEventBytes: 1000 });
    for (let i = 0; i < 50; i++) expect(ok.push(Buffer.from(line.repeat(5) + '\n'))).toHaveLength(1);
    const tooMany = new SseParser({ maxEventBytes: 1000 });
    expect(() => tooMany.push(Buffer.from(line.repeat(10)))).toThrow(UpstreamError);
  });
});
