import { describe, expect, it } from 'vitest';
import { getModelCapabilities } from './capabilities.js';

describe('getModelCapabilities', () => {
  it.each([
    { model: 'gemini-2.5-flash', want: { thinkingLevel: false, enforcesThoughtSignatures: false } },
    { model: 'models/gemini-2.0-flash', want: { thinkingLevel: false, enforcesThoughtSignatures: false } },
    { model: 'gemini-3-flash-preview', want: { thinkingLevel: true, enforcesThoughtSignatures: true } },
    { model: 'gemini-3.1-pro-preview', want: { thinkingLevel: true, enforcesThoughtSignatures: true } },
    { model: 'gemini-flash-latest', want: { thinkingLevel: true, enforcesThoughtSignatures: true } },
    { model: 'some-future-model', want: { thinkingLevel: true, enforcesThoughtSignatures: true } },
  ])('$model', ({ model, want }) => {
    expect(getModelCapabilities(model)).toStrictEqual(want);
  });
});
