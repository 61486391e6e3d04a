import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../errors.js';
import type { ChatCompletionRequest } from '../../openai/chat-request.js';
import { convertSpeech, sampleRateOf, wavFromPcm } from './convert-speech.js';

type Req = Pick<ChatCompletionRequest, 'modalities' | 'audio' | 'stream'>;
const tts = 'gemini-2.5-flash-preview-tts';

describe('convertSpeech', () => {
  it.each<{ name: string; req: Req; model?: string; want: unknown }>([
    { name: 'no audio asked', req: { modalities: ['text'] }, want: undefined },
    {
      name: 'text + audio with a voice in any case',
      req: { modalities: ['text', 'audio'], audio: { voice: 'PUCK', format: 'wav' } },
      want: { responseModalities: ['AUDIO'], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Puck' } } }, format: 'wav' },
    },
    {
      name: 'streamed pcm16 on a 3.x TTS model',
      req: { modalities: ['audio'], audio: { voice: 'Kore', format: 'pcm16' }, stream: true },
      model: 'gemini-3.1-flash-tts-preview',
      want: { responseModalities: ['AUDIO'], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Kore' } } }, format: 'pcm16' },
    },
  ])('$name', ({ req, model, want }) => {
    expect(convertSpeech(req, model ?? tts)).toStrictEqual(want);
  });

  it.each<{ name: string; req: Req; model?: string; param: string }>([
    { name: 'audio settings without the modality', req: { audio: { voice: 'Kore', format: 'wav' } }, param: 'audio' },
    { name: 'a model without audio', req: { modalities: ['audio'], audio: { voice: 'Kore', format: 'wav' } }, model: 'gemini-2.5-flash', param: 'modalities' },
    { name: 'audio with image', req: { modalities: ['image', 'audio'], audio: { voice: 'Kore', format: 'wav' } }, param: 'modalities' },
    { name: 'no audio settings', req: { modalities: ['audio'] }, param: 'audio' },
    { name: 'a custom voice id', req: { modalities: ['audio'], audio: { voice: { id: 'voice_1' }, format: 'wav' } }, param: 'audio.voice' },
    { name: 'opus', req: { modalities: ['audio'], audio: { voice: 'Kore', format: 'opus' } }, param: 'audio.format' },
    { name: 'wav streamed', req: { modalities: ['audio'], audio: { voice: 'Kore', format: 'wav' }, stream: true }, model: 'gemini-3.1-flash-tts-preview', param: 'audio.format' },
    { name: 'streamed on 2.5 TTS', req: { modalities: ['audio'], audio: { voice: 'Kore', format: 'pcm16' }, stream: true }, param: 'stream' },
  ])('400: $name', ({ req, model, param }) => {
    let err: unknown;
    try {
      convertSpeech(req, model ?? tts);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InvalidRequestError);
    expect((err as InvalidRequestError).param).toBe(param);
  });
});

describe('PCM helpers', () => {
  it.each([
    { mime: 'audio/L16;codec=pcm;rate=24000', want: 24000 },
    { mime: 'audio/L16;rate=16000', want: 16000 },
    { mime: undefined, want: 24000 },
  ])('sampleRateOf($mime)', ({ mime, want }) => {
    expect(sampleRateOf(mime)).toBe(want);
  });

  it('wavFromPcm writes the canonical 44-byte header', () => {
    const wav = wavFromPcm(Buffer.from([1, 2, 3, 4]), 16000);
    expect(wav.subarray(0, 44).toString('hex')).toBe(
      '52494646' + '28000000' + '57415645' + '666d7420' + '10000000' + '0100' + '0100' + '803e0000' + '007d0000' + '0200' + '1000' + '64617461' + '04000000',
    );
    expect([...wav.subarray(44)]).toStrictEqual([1, 2, 3, 4]);
  });
});
