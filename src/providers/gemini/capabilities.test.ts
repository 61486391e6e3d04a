import { describe, expect, it } from 'vitest';
import { getModelCapabilities, type ModelCapabilities } from './capabilities.js';

const modern: ModelCapabilities = {
  thinkingLevel: true,
  enforcesThoughtSignatures: true,
  urlContext: true,
  googleSearch: true,
  logprobs: true,
  maxCandidates: 1,
  serviceTiers: true,
  perPartMediaResolution: true,
  audioOutput: false,
  streamsAudio: false,
};
const flash25: ModelCapabilities = {
  ...modern,
  thinkingLevel: false,
  enforcesThoughtSignatures: false,
  logprobs: false,
  maxCandidates: 8,
  perPartMediaResolution: false,
};

describe('getModelCapabilities', () => {
  it.each<{ model: string; want: ModelCapabilities }>([
    { model: 'gemini-2.5-flash', want: flash25 },
    { model: 'gemini-2.5-pro', want: flash25 },
    {
      model: 'models/gemini-2.0-flash',
      want: { ...flash25, urlContext: false, logprobs: true, serviceTiers: false },
    },
    { model: 'gemini-2.5-flash-image', want: { ...flash25, urlContext: false, googleSearch: false, maxCandidates: 1 } },
    { model: 'gemini-2.0-flash-lite', want: { ...flash25, urlContext: false, googleSearch: false, logprobs: true, serviceTiers: false } },
    { model: 'gemini-3-pro-image-preview', want: { ...modern, urlContext: false } },
    {
      model: 'gemini-2.5-flash-preview-tts',
      want: { ...flash25, urlContext: false, googleSearch: false, maxCandidates: 1, serviceTiers: false, audioOutput: true },
    },
    {
      model: 'gemini-3.1-flash-tts-preview',
      want: { ...modern, urlContext: false, googleSearch: false, maxCandidates: 1, serviceTiers: false, audioOutput: true, streamsAudio: true },
    },
    { model: 'gemini-3-flash-preview', want: modern },
    { model: 'gemini-3.1-pro-preview', want: modern },
    { model: 'gemini-3.5-flash', want: { ...modern, logprobs: false } },
    { model: 'gemini-flash-latest', want: modern },
    { model: 'some-future-model', want: modern },
  ])('$model', ({ model, want }) => {
    expect(getModelCapabilities(model)).toStrictEqual(want);
  });
});

describe('getModelCapabilities, answered once per id', () => {
  it('gives the same frozen answer for the same id, and a caller cannot change it', () => {
    const first = getModelCapabilities('gemini-2.5-flash');
    expect(getModelCapabilities('gemini-2.5-flash')).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(() => {
      (first as ModelCapabilities).maxCandidates = 99;
    }).toThrow(TypeError);
    expect(getModelCapabilities('gemini-2.5-flash').maxCandidates).toBe(8);
  });

  it('answers every id right past the table bound (ids are the client\'s)', () => {
    for (let i = 0; i < 600; i++) {
      const id = i % 2 === 0 ? `gemini-2.5-flash-x${i}` : `gemini-3-pro-x${i}`;
      expect(getModelCapabilities(id).thinkingLevel).toBe(i % 2 === 1);
    }
    expect(getModelCapabilities('GEMINI-2.5-FLASH-TTS').audioOutput).toBe(true);
  });
});
