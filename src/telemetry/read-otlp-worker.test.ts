import { describe, expect, it } from 'vitest';
import { readOtlpWorker } from './read-otlp-worker.js';

describe('readOtlpWorker', () => {
  it('is on unless SIDEGATE_OTLP_WORKER=false, and a bad value stops the start naming it', () => {
    expect(readOtlpWorker({})).toBe(true);
    expect(readOtlpWorker({ SIDEGATE_OTLP_WORKER: ' TRUE ' })).toBe(true);
    expect(readOtlpWorker({ SIDEGATE_OTLP_WORKER: '' })).toBe(true);
    expect(readOtlpWorker({ SIDEGATE_OTLP_WORKER: 'false' })).toBe(false);
    expect(() => readOtlpWorker({ SIDEGATE_OTLP_WORKER: 'off' })).toThrow('SIDEGATE_OTLP_WORKER must be true or false, got "off"');
  });
});
