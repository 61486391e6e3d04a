import { describe, expect, it } from 'vitest';
import { summarizeTrace } from '../traces/summarize-trace.js';
import { exampleSpans, span, XSS } from './__fixtures__/example-spans.js';
import { waterfallOf } from './waterfall.js';

describe('waterfallOf', () => {
  it('flattens the tree depth first, places bars on the work window, and labels each kind', () => {
    const spans = exampleSpans();
    const rows = waterfallOf(summarizeTrace(spans), spans);
    expect(rows.map((r) => [r.node.name, r.depth, r.label, r.offset, r.width, r.descendants])).toStrictEqual([
      ['answer question', 0, 'log', 0, 1000, 4],
      ['chat gemini-2.5-flash', 1, 'request', 100, 500, 2],
      ['generate_content gemini-2.5-flash', 2, 'attempt #1', 110, 40, 0],
      ['generate_content gemini-2.5-flash', 2, 'attempt #2 · retry 1', 300, 290, 0],
      [XSS, 1, 'log', 700, 200, 0],
      // Feedback came seconds later: it sits at the end of the axis instead of stretching it.
      ['feedback', 0, 'feedback', 998, 2, 0],
      ['feedback', 0, 'feedback', 998, 2, 0],
    ]);
    expect(rows.every((r) => !r.hidden && r.hiding === 0)).toBe(true);
    expect(rows[2]!.span?.attributes['error.type']).toBe('503');
  });

  it('marks a fallback target', () => {
    const spans = [
      span('0000000000000002', '', 'chat m', 0, 10, { attributes: { 'gateway.attempts': 1 } }),
      span('0000000000000003', '0000000000000002', 'chat other', 0, 10, { attributes: { 'gateway.attempt.number': 2, 'gateway.target.index': 1 } }),
    ];
    expect(waterfallOf(summarizeTrace(spans), spans).map((r) => r.label)).toStrictEqual(['request', 'attempt #2 · fallback → target 1']);
  });

  it('hides rows deeper than the collapse depth and counts them on the row at that depth; a 5,000-level chain does not overflow', () => {
    const chain = Array.from({ length: 5000 }, (_, i) => span(i.toString(16).padStart(16, '0').replace(/^0/, '1'), i === 0 ? '' : (i - 1).toString(16).padStart(16, '0').replace(/^0/, '1'), `link ${i}`, i, 6000 - i));
    const rows = waterfallOf(summarizeTrace(chain), chain, 3);
    expect(rows).toHaveLength(5000);
    expect(rows.map((r) => r.depth).slice(0, 6)).toStrictEqual([0, 1, 2, 3, 4, 5]);
    expect(rows.filter((r) => r.hidden)).toHaveLength(4996);
    expect(rows[3]!.hiding).toBe(4996);
    expect(rows[0]!.descendants).toBe(4999);
    expect(rows.filter((r) => r.hiding > 0)).toHaveLength(1);
  });
});
