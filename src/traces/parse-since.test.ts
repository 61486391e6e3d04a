import { describe, expect, it } from 'vitest';
import { parseSince } from './parse-since.js';

describe('parseSince', () => {
  it.each([
    ['90s', 90_000],
    ['30m', 1_800_000],
    ['1h', 3_600_000],
    ['2d', 172_800_000],
    ['30d', 2_592_000_000],
    [' 5m ', 300_000],
    ['31d', null],
    ['0h', null],
    ['1 h', null],
    ['1.5h', null],
    ['h', null],
    ['-1h', null],
    ['', null],
  ])('%j → %j', (input, want) => expect(parseSince(input)).toBe(want));
});
