import { describe, expect, it } from 'vitest';
import { mapSpanId, mapTraceId } from './map-id.js';

describe('mapTraceId', () => {
  it.each([
    { name: '32 hex kept', input: '4bf92f3577b34da6a3ce929d0e0e4736', want: '4bf92f3577b34da6a3ce929d0e0e4736' },
    { name: 'upper-case hex lowered', input: '4BF92F3577B34DA6A3CE929D0E0E4736', want: '4bf92f3577b34da6a3ce929d0e0e4736' },
    { name: 'UUID dashes stripped', input: '4bf92f35-77b3-4da6-a3ce-929d0e0e4736', want: '4bf92f3577b34da6a3ce929d0e0e4736' },
  ])('$name', ({ input, want }) => {
    expect(mapTraceId(input)).toStrictEqual(want);
  });

  it('hashes a non-hex id deterministically to 32 hex', () => {
    const a = mapTraceId('checkout-run-42');
    expect(a).toMatch(/^[0-9a-f]{32}$/);
    expect(mapTraceId('checkout-run-42')).toStrictEqual(a);
    expect(mapTraceId('checkout-run-43')).not.toStrictEqual(a);
  });

  it('hashes an all-zero id instead of using it', () => {
    expect(mapTraceId('0'.repeat(32))).not.toStrictEqual('0'.repeat(32));
    expect(mapTraceId('0'.repeat(32))).toMatch(/^[0-9a-f]{32}$/);
  });
});

describe('mapSpanId', () => {
  it.each([
    { name: '16 hex kept', input: '00f067aa0ba902b7', want: '00f067aa0ba902b7' },
    { name: 'upper-case lowered', input: '00F067AA0BA902B7', want: '00f067aa0ba902b7' },
  ])('$name', ({ input, want }) => {
    expect(mapSpanId(input)).toStrictEqual(want);
  });

  it('hashes names and 32-hex strings to 16 hex', () => {
    expect(mapSpanId('retrieval-step')).toMatch(/^[0-9a-f]{16}$/);
    expect(mapSpanId('4bf92f3577b34da6a3ce929d0e0e4736')).toMatch(/^[0-9a-f]{16}$/);
    expect(mapSpanId('retrieval-step')).toStrictEqual(mapSpanId('retrieval-step'));
  });
});
