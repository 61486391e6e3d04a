import { describe, expect, it } from 'vitest';
import { SseParser } from './sse-parser.js';

function parseAll(pieces: string[]): string[] {
  const parser = new SseParser();
  const out: string[] = [];
  for (const p of pieces) out.push(...parser.push(p));
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
    const out = pieces.flatMap((p) => parser.push(p));
    expect([...out, ...parser.end()]).toStrictEqual(want);
  });
});
