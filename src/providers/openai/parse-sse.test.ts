import { describe, expect, it } from 'vitest';
import { SseDataParser } from './parse-sse.js';

describe('SseDataParser', () => {
  it.each([
    { name: 'one event per push', pieces: ['data: {"a":1}\n\n'], want: ['{"a":1}'] },
    { name: 'split across pushes', pieces: ['da', 'ta: {"a"', ':1}\n', '\n'], want: ['{"a":1}'] },
    { name: 'CRLF line ends', pieces: ['data: x\r\n\r\ndata: y\r\n\r\n'], want: ['x', 'y'] },
    { name: 'no space after colon', pieces: ['data:x\n\n'], want: ['x'] },
    { name: 'multi-line data', pieces: ['data: a\ndata: b\n\n'], want: ['a\nb'] },
    { name: 'comments and other fields ignored', pieces: [': ping\n\nevent: message\nid: 1\ndata: x\n\n'], want: ['x'] },
    { name: 'no trailing blank line (flushed at end)', pieces: ['data: [DONE]'], want: ['[DONE]'] },
  ])('$name', ({ pieces, want }) => {
    const parser = new SseDataParser();
    const out = pieces.flatMap((p) => parser.push(p));
    expect([...out, ...parser.end()]).toStrictEqual(want);
  });
});
