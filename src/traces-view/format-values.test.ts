import { describe, expect, it } from 'vitest';
import { formatCost, formatCount, formatDuration, formatFeedback, formatTime } from './format-values.js';

describe('formatCost', () => {
  it.each([
    { input: null, want: '' },
    { input: 0, want: '$0' },
    { input: 12.3456, want: '$12.35' },
    { input: 0.0345678, want: '$0.0346' },
    { input: 0.000089, want: '$0.000089' },
    { input: 0.0001234567, want: '$0.0001235' },
    { input: 1.2e-9, want: '$0.0000000012' },
  ])('$input → $want', ({ input, want }) => {
    expect(formatCost(input)).toStrictEqual(want);
  });
});

describe('formatDuration', () => {
  it.each([
    { input: 0.25, want: '250 µs' },
    { input: 3.456, want: '3.5 ms' },
    { input: 245.4, want: '245 ms' },
    { input: 1234, want: '1.23 s' },
    { input: 125_000, want: '2 min 5 s' },
  ])('$input ms → $want', ({ input, want }) => {
    expect(formatDuration(input)).toStrictEqual(want);
  });
});

describe('the others', () => {
  it('counts, times and feedback', () => {
    expect([formatCount(null), formatCount(0), formatCount(1234567)]).toStrictEqual(['', '0', '1,234,567']);
    expect(formatTime('2026-11-25T14:03:12.345Z')).toStrictEqual('2026-11-25 14:03:12');
    expect([formatFeedback(0, null), formatFeedback(2, 2), formatFeedback(3, 2.666667), formatFeedback(1, null)]).toStrictEqual(['', '2 · mean 2', '3 · mean 2.67', '1']);
  });
});
