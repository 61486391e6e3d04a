import { describe, expect, it } from 'vitest';
import { pickWeighted } from './loadbalance.js';

const items = [
  { id: 'a', weight: 1 },
  { id: 'zero', weight: 0 },
  { id: 'b', weight: 3 },
];

describe('pickWeighted', () => {
  const cases: Array<{ random: number; want: string }> = [
    { random: 0, want: 'a' },
    { random: 0.2499, want: 'a' },
    { random: 0.25, want: 'b' },
    { random: 0.9999999, want: 'b' },
    { random: 1, want: 'b' },
  ];

  it.each(cases)('random $random picks $want', ({ random, want }) => {
    expect(pickWeighted(items, () => random).id).toBe(want);
  });

  it('never picks a zero weight and follows the weights over a sweep', () => {
    const counts: Record<string, number> = { a: 0, zero: 0, b: 0 };
    for (let i = 0; i < 1000; i++) counts[pickWeighted(items, () => i / 1000).id]!++;
    expect(counts).toStrictEqual({ a: 250, zero: 0, b: 750 });
  });

  it('throws when nothing has weight', () => {
    expect(() => pickWeighted([{ weight: 0 }])).toThrow(/positive weight/);
  });
});
