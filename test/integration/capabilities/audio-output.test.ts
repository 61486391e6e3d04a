/**
 * Audio output (issue 23 row 3; docs/gemini-fields.md): OpenAI's `modalities` with `audio` and
 * `audio: {voice, format}` on a Gemini TTS model → `responseModalities: ["AUDIO"]` and
 * `speechConfig`; the answer's `message.audio` in OpenAI's shape (Gemini's 24 kHz PCM as `pcm16`,
 * or wrapped as `wav`), streamed as `delta.audio`; audio tokens in the usage.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../harness.js';
import { apiError, collect, deltas, NON_STRICT } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
beforeEach(() => h.emulator.reset());

const say = 'Have a wonderful day!';
/** The emulator speaks 10 ms per character: 240 samples of 16-bit PCM each (features/speech.ts). */
const pcmBytes = say.length * 240 * 2;
const audioTokens = Math.ceil((say.length * 240 * 25) / 24_000);
const upstream = {
  contents: [{ role: 'user', parts: [{ text: say }] }],
  generationConfig: { responseModalities: ['AUDIO'], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Kore' } } } },
};
const request = (format: 'wav' | 'pcm16', model = 'gemini-2.5-flash-preview-tts') => ({
  model,
  messages: [{ role: 'user' as const, content: say }],
  modalities: ['text' as const, 'audio' as const],
  audio: { voice: 'kore' as const, format },
});

describe('audio output', () => {
  it.each([
    { mode: 'strict', options: undefined },
    { mode: 'non-strict', options: NON_STRICT },
  ])('$mode: pcm16 is Gemini’s PCM as is; usage counts audio tokens', async ({ options }) => {
    const before = Math.floor(Date.now() / 1000);
    const out = await h.client.chat.completions.create(request('pcm16') as never, options);
    expect(h.emulator.requests[0]!.body).toStrictEqual(upstream);
    const message = out.choices[0]!.message;
    expect(message.content).toBeNull();
    expect(message.audio!.id).toMatch(/^audio_[0-9a-f]{32}$/);
    expect(message.audio!.transcript).toBe('');
    expect(message.audio!.expires_at).toBeGreaterThanOrEqual(before + 3600);
    const pcm = Buffer.from(message.audio!.data, 'base64');
    expect(pcm.length).toBe(pcmBytes);
    expect(pcm.readInt16LE(2)).toBe(-9900); // the emulator's ramp: ((1 % 200) - 100) * 100
    expect(out.usage?.completion_tokens).toBe(audioTokens);
    expect(out.usage?.completion_tokens_details).toStrictEqual({ reasoning_tokens: 0, audio_tokens: audioTokens });
  });

  it('wav wraps the PCM in a 44-byte RIFF header (PCM, mono, 24 kHz, 16 bit)', async () => {
    const out = await h.client.chat.completions.create(request('wav') as never);
    expect(h.emulator.requests[0]!.body).toStrictEqual(upstream);
    const wav = Buffer.from(out.choices[0]!.message.audio!.data, 'base64');
    expect(wav.length).toBe(44 + pcmBytes);
    expect(wav.toString('ascii', 0, 4)).toBe('RIFF');
    expect(wav.toString('ascii', 8, 16)).toBe('WAVEfmt ');
    expect([wav.readUInt16LE(20), wav.readUInt16LE(22), wav.readUInt32LE(24), wav.readUInt16LE(34)]).toStrictEqual([1, 1, 24_000, 16]);
    expect(wav.toString('ascii', 36, 40)).toBe('data');
    expect(wav.readUInt32LE(40)).toBe(pcmBytes);
  });

  it('streams pcm16 as delta.audio chunks with one id, then the expiry on the last chunk', async () => {
    const chunks = await collect(await h.client.chat.completions.create({ ...request('pcm16', 'gemini-3.1-flash-tts-preview'), stream: true } as never));
    expect(h.emulator.requests[0]!.path).toBe('/v1beta/models/gemini-3.1-flash-tts-preview:streamGenerateContent?alt=sse');
    expect(h.emulator.requests[0]!.body).toStrictEqual(upstream);
    const audio = deltas(chunks)
      .map((d) => d.audio as { id: string; data?: string; expires_at?: number; transcript?: string } | undefined)
      .filter((a) => a !== undefined);
    expect(audio.length).toBeGreaterThan(2);
    expect(new Set(audio.map((a) => a.id)).size).toBe(1);
    const data = audio.filter((a) => a.data !== undefined).map((a) => Buffer.from(a.data!, 'base64'));
    expect(data.length).toBeGreaterThan(1);
    expect(Buffer.concat(data).length).toBe(pcmBytes);
    expect(audio.at(-1)).toMatchObject({ transcript: '' });
    expect(audio.at(-1)!.expires_at).toBeGreaterThan(0);
  });

  it.each([
    { name: 'a model that does not answer audio', body: { ...request('pcm16'), model: 'gemini-2.5-flash' }, param: 'modalities', names: 'gemini-2.5-flash' },
    { name: "an OpenAI voice (Gemini has no 'alloy')", body: { ...request('pcm16'), audio: { voice: 'alloy', format: 'pcm16' } }, param: 'audio.voice', names: 'alloy' },
    { name: 'mp3 (would need transcoding)', body: { ...request('pcm16'), audio: { voice: 'Kore', format: 'mp3' } }, param: 'audio.format', names: 'mp3' },
    { name: 'wav while streaming (OpenAI streams pcm16)', body: { ...request('wav', 'gemini-3.1-flash-tts-preview'), stream: true }, param: 'audio.format', names: 'pcm16' },
    { name: 'streaming on a 2.5 TTS model (unary only)', body: { ...request('pcm16'), stream: true }, param: 'stream', names: 'gemini-2.5-flash-preview-tts' },
    { name: 'audio modality without audio settings', body: { ...request('pcm16'), audio: undefined }, param: 'audio', names: 'audio' },
  ])('$name → 400 naming it, nothing sent', async ({ body, param, names }) => {
    const err = await apiError(h.client.chat.completions.create(body as never));
    expect(err.status).toBe(400);
    expect(err.param).toBe(param);
    expect(err.message).toContain(names);
    expect(h.emulator.requests).toHaveLength(0);
  });
});
