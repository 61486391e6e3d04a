import { describe, expect, it } from 'vitest';
import { charIndexOfByte, groundingAnnotations, type PartText } from './convert-grounding.js';

const web = (n: number) => ({ web: { uri: `https://r/${n}`, title: `site${n}.com` } });
const cite = (start: number, end: number, n: number) => ({
  type: 'url_citation',
  url_citation: { start_index: start, end_index: end, url: `https://r/${n}`, title: `site${n}.com` },
});

describe('charIndexOfByte', () => {
  it.each([
    { text: 'abc', bytes: 2, want: 2 },
    { text: 'héllo', bytes: 3, want: 2 }, // é is 2 bytes
    { text: 'héllo', bytes: 2, want: 1 }, // a cut inside é stops before it
    { text: 'a😀b', bytes: 5, want: 3 }, // 😀 is 4 bytes, 2 UTF-16 units
    { text: 'ab', bytes: 10, want: 2 },
  ])('$text @ $bytes bytes → $want', ({ text, bytes, want }) => {
    expect(charIndexOfByte(text, bytes)).toBe(want);
  });
});

describe('groundingAnnotations', () => {
  const text = 'Spain won — Euro 2024.';
  const parts: PartText[] = [{ at: 0, text }];
  const endBytes = Buffer.byteLength(text);

  it.each<{ name: string; metadata: unknown; parts?: Array<PartText | undefined>; want: unknown[] }>([
    {
      name: 'one annotation per cited web chunk, byte offsets as UTF-16 positions',
      metadata: {
        groundingChunks: [web(0), web(1)],
        groundingSupports: [{ segment: { startIndex: 6, endIndex: endBytes }, groundingChunkIndices: [0, 1] }],
      },
      want: [cite(6, text.length, 0), cite(6, text.length, 1)],
    },
    {
      name: 'missing startIndex is 0; partIndex picks the part and shifts by where it begins',
      metadata: { groundingChunks: [web(0)], groundingSupports: [{ segment: { partIndex: 1, endIndex: 5 }, groundingChunkIndices: [0] }] },
      parts: [undefined, { at: 10, text: 'Spain won' }],
      want: [cite(10, 15, 0)],
    },
    {
      name: 'non-web chunks, bad indexes and segments without an end are skipped',
      metadata: {
        groundingChunks: [{ maps: { uri: 'x' } }, web(1)],
        groundingSupports: [
          { segment: { endIndex: 3 }, groundingChunkIndices: [0, 5, 'x', 1] },
          { segment: { startIndex: 1 }, groundingChunkIndices: [1] },
          { segment: { partIndex: 4, endIndex: 2 }, groundingChunkIndices: [1] },
        ],
      },
      want: [cite(0, 3, 1)],
    },
    { name: 'no metadata', metadata: undefined, want: [] },
    { name: 'malformed metadata', metadata: { groundingSupports: 'x', groundingChunks: 3 }, want: [] },
  ])('$name', ({ metadata, parts: p, want }) => {
    expect(groundingAnnotations(metadata, p ?? parts)).toStrictEqual(want);
  });
});
