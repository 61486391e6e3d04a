import { describe, expect, it } from 'vitest';
import { mapSpanId, mapTraceId } from '../telemetry/map-id.js';
import { parseLogs } from './parse-logs.js';

const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);

describe('parseLogs', () => {
  it.each([
    { name: 'no created_at: start is now − response_time', input: { request: {}, response: { response_time: 250 } }, want: { startMs: NOW - 250, endMs: NOW } },
    { name: 'created_at as epoch ms', input: { request: {}, created_at: 1_700_000_000_123, response: { response_time: 7.5 } }, want: { startMs: 1_700_000_000_123, endMs: 1_700_000_000_130.5 } },
    { name: 'created_at as ISO 8601 with offset', input: { request: {}, created_at: '2026-11-23T10:00:00.500+01:00' }, want: { startMs: Date.UTC(2026, 10, 23, 9, 0, 0, 500), endMs: Date.UTC(2026, 10, 23, 9, 0, 0, 500) } },
    { name: 'no response: zero duration at now', input: { request: {} }, want: { startMs: NOW, endMs: NOW } },
  ])('$name', ({ input, want }) => {
    const [entry] = parseLogs(input, NOW);
    expect({ startMs: entry!.startMs, endMs: entry!.endMs }).toStrictEqual(want);
  });

  it('maps ids with the header mapping, keeps the client strings, and splits the other metadata off', () => {
    const [entry] = parseLogs(
      [{ request: { method: 'POST' }, metadata: { traceId: 'Trace-A', spanId: 'b', parentSpanId: '00f067aa0ba902b7', spanName: ` ${'n'.repeat(300)} `, team: 'x' } }],
      NOW,
    );
    expect(entry).toStrictEqual({
      trace: { id: mapTraceId('Trace-A'), client: 'Trace-A' },
      span: { id: mapSpanId('b'), client: 'b' },
      parentSpanId: '00f067aa0ba902b7',
      spanName: 'n'.repeat(256),
      request: { method: 'POST' },
      metadata: { team: 'x' },
      startMs: NOW,
      endMs: NOW,
    });
  });

  it('accepts a 50-level chain given leaf first', () => {
    const chain = Array.from({ length: 50 }, (_, i) => ({
      request: {},
      metadata: { traceId: 'chain', spanId: `s${i}`, ...(i > 0 ? { parentSpanId: `s${i - 1}` } : {}) },
    })).reverse();
    expect(parseLogs(chain, NOW)).toHaveLength(50);
  });

  it('compares ids after mapping: a UUID and its dash-less hex are the same span', () => {
    const uuid = '0af76519-16cd-43dd-8448-eb211c80319c';
    expect(() => parseLogs({ request: {}, metadata: { traceId: uuid, spanId: '0AF7651916CD43DD', parentSpanId: '0af7651916cd43dd' } }, NOW)).toThrow(
      /its own parent/,
    );
  });
});
