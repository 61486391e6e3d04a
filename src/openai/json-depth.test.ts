import { describe, expect, it } from 'vitest';
import { findTooDeep, jsonTextTooDeep } from './json-depth.js';

/** `{"a":{"a":…}}` n levels deep, built without recursion. */
function nested(n: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < n; i++) value = { a: value };
  return value;
}

describe('findTooDeep', () => {
  it.each([
    { name: 'a scalar', value: 1, max: 0, want: undefined },
    { name: '{} at its limit', value: {}, max: 1, want: undefined },
    { name: '{} over a limit of 0', value: {}, max: 0, want: [] },
    { name: 'exactly at the limit', value: nested(3), max: 3, want: undefined },
    { name: 'one level over: the path to the first too-deep value', value: nested(4), max: 3, want: ['a', 'a', 'a'] },
    { name: 'arrays count too', value: { x: [[1]] }, max: 2, want: ['x', 0] },
    { name: 'the first too-deep value in document order', value: { ok: [1], deep: [[[1]]], deeper: [[[[1]]]] }, max: 3, want: ['deep', 0, 0] },
  ])('$name', ({ value, max, want }) => {
    expect(findTooDeep(value, max)).toStrictEqual(want);
  });

  it('measures 100,000 levels without recursing', () => {
    const path = findTooDeep(nested(100_000), 512);
    expect(path).toHaveLength(512);
  });
});

describe('jsonTextTooDeep', () => {
  it.each([
    { text: '{"a":[1,2,{"b":3}]}', max: 3, want: false },
    { text: '{"a":[1,2,{"b":3}]}', max: 2, want: true },
    { text: '"[[[[[[" ', max: 1, want: false },
    { text: '{"s":"\\"[[[["}', max: 1, want: false },
    { text: '[{}]', max: 1, want: true },
    { text: 'not json at all', max: 0, want: false },
    { text: '['.repeat(100_000), max: 512, want: true },
  ])('$text (max $max) → $want', ({ text, max, want }) => {
    expect(jsonTextTooDeep(text, max)).toBe(want);
  });
});
