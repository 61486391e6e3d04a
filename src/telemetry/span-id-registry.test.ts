import { describe, expect, it } from 'vitest';
import { SpanIdRegistry } from './span-id-registry.js';

const T1 = '0af7651916cd43dd8448eb211c80319c';
const T2 = '4bf92f3577b34da6a3ce929d0e0e4736';
const S1 = 'b7ad6b7169203331';
const S2 = '00f067aa0ba902b7';

describe('SpanIdRegistry', () => {
  const cases: Array<{ name: string; claims: Array<[string, string]>; want: boolean[] }> = [
    { name: 'a pair is free once, then taken', claims: [[T1, S1], [T1, S1]], want: [true, false] },
    { name: 'the same span id in another trace is free', claims: [[T1, S1], [T2, S1]], want: [true, true] },
    { name: 'another span id in the same trace is free', claims: [[T1, S1], [T1, S2]], want: [true, true] },
    // Not hex (never after Decision 2's mapping, but a caller may skip it): kept as text, so it
    // cannot meet a hex pair whose bytes decode to the same prefix.
    { name: 'ids that are not hex are kept apart', claims: [[T1, 'b7ad6b716920333z'], [T1, 'b7ad6b716920333y'], [T1, 'b7ad6b716920333z']], want: [true, true, false] },
    // 34 + 14 hex characters decode to the same 24 bytes as 32 + 16: the lengths keep them apart.
    { name: 'a different split of the same hex is another pair', claims: [[T1, S1], [`${T1}b7`, S1.slice(2)]], want: [true, true] },
  ];
  it.each(cases)('$name', ({ claims, want }) => {
    const registry = new SpanIdRegistry();
    expect(claims.map(([trace, span]) => registry.claim(trace, span))).toStrictEqual(want);
  });

  // Pairs named by number: span id i in trace T1.
  const pair = (i: number): [string, string] => [T1, i.toString(16).padStart(16, '0')];

  it('remembers the last capacity / 2 pairs, and forgets pairs from more than capacity ago', () => {
    const registry = new SpanIdRegistry(4);
    expect([1, 2, 3, 4, 5].map((i) => registry.claim(...pair(i)))).toStrictEqual([true, true, true, true, true]);
    // 4 and 5 are among the last two; 1 is five pairs back.
    expect([registry.claim(...pair(5)), registry.claim(...pair(4)), registry.claim(...pair(1))]).toStrictEqual([false, false, true]);
  });

  it('keeps a pair that keeps being asked for, however many others pass', () => {
    const registry = new SpanIdRegistry(4);
    const sticky = pair(0);
    expect(registry.claim(...sticky)).toBe(true);
    // Sticky client options: the same pair on every call, ten new pairs between.
    const again = [];
    for (let i = 1; i <= 10; i++) {
      registry.claim(...pair(i));
      again.push(registry.claim(...sticky));
    }
    expect(again).toStrictEqual(Array(10).fill(false));
  });
});
