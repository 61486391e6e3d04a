import { describe, expect, it } from 'vitest';
import { readOtlpWorker } from './read-otlp-worker.js';

describe('readOtlpWorker', () => {
  it('is off unless SIDEGATE_OTLP_WORKER=true, and a bad value stops the start naming it', () => {
    expect(readOtlpWorker({})).toBe(false);
    expect(readOtlpWorker({ SIDEGATE_OTLP_WORKER: '' })).toBe(false);
    expect(readOtlpWorker({ SIDEGATE_OTLP_WORKER: 'false' })).toBe(false);
    expect(readOtlpWorker({ SIDEGATE_OTLP_WORKER: ' TRUE ' })).toBe(true);
    expect(() => readOtlpWorker({ SIDEGATE_OTLP_WORKER: 'on' })).toThrow('SIDEGATE_OTLP_WORKER must be true or false, got "on"');
  });
});
