import * as incubating from '@opentelemetry/semantic-conventions/incubating';
import { describe, expect, it } from 'vitest';
import * as copied from './semconv-incubating.js';

describe('semconv-incubating', () => {
  it.each(Object.entries(copied))('%s matches the semantic-conventions package', (name, value) => {
    expect((incubating as Record<string, unknown>)[name]).toBe(value);
  });
});
