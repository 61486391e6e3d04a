import { describe, expect, it } from 'vitest';
import { validateGenerateRequest } from '../validate-request.js';
import { pcmFor, splitPcm } from './speech.js';

const hi = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] };
const speech = (voiceName: unknown) => ({ speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName } } } });

function messageOf(body: Record<string, unknown>, model: string, stream = false): string | null {
  const r = validateGenerateRequest({ ...hi, ...body }, model, () => undefined, stream);
  return r.ok ? null : r.error.error.message;
}

describe('TTS requests (gemini-more-fields §3)', () => {
  it.each<{ name: string; model: string; body: Record<string, unknown>; stream?: boolean; want: string | null }>([
    { name: 'AUDIO with a prebuilt voice', model: 'gemini-2.5-flash-preview-tts', body: { generationConfig: { responseModalities: ['AUDIO'], ...speech('Kore') } }, want: null },
    { name: 'AUDIO on a text model', model: 'gemini-2.5-flash', body: { generationConfig: { responseModalities: ['AUDIO'] } }, want: 'Model does not support the requested response modalities: audio' },
    { name: 'TEXT and AUDIO on a TTS model', model: 'gemini-2.5-pro-preview-tts', body: { generationConfig: { responseModalities: ['TEXT', 'AUDIO'] } }, want: 'Model does not support the requested response modalities: text,audio' },
    { name: 'no modality on a TTS model', model: 'gemini-2.5-pro-preview-tts', body: {}, want: 'Model does not support the requested response modalities: text' },
    { name: 'an unknown voice', model: 'gemini-2.5-flash-preview-tts', body: { generationConfig: { responseModalities: ['AUDIO'], ...speech('alloy') } }, want: 'Voice "alloy" is not a prebuilt voice.' },
    { name: 'streaming on 2.5 TTS', model: 'gemini-2.5-flash-preview-tts', body: { generationConfig: { responseModalities: ['AUDIO'] } }, stream: true, want: 'Streaming is not supported for models/gemini-2.5-flash-preview-tts.' },
    { name: 'streaming on 3.1 TTS', model: 'gemini-3.1-flash-tts-preview', body: { generationConfig: { responseModalities: ['AUDIO'] } }, stream: true, want: null },
  ])('$name', ({ model, body, stream, want }) => {
    expect(messageOf(body, model, stream)).toStrictEqual(want);
  });
});

describe('PCM', () => {
  it('10 ms of 24 kHz 16-bit audio per character, 25 tokens a second', () => {
    const { data, tokens } = pcmFor('hello');
    expect(Buffer.from(data, 'base64').length).toBe(5 * 240 * 2);
    expect(tokens).toBe(Math.ceil(0.05 * 25));
  });

  it('splits on sample boundaries and concatenates back', () => {
    const { data } = pcmFor('hello world');
    const pieces = splitPcm(data);
    expect(pieces).toHaveLength(3);
    for (const p of pieces) expect(Buffer.from(p, 'base64').length % 2).toBe(0);
    expect(Buffer.concat(pieces.map((p) => Buffer.from(p, 'base64'))).toString('base64')).toBe(data);
  });
});
