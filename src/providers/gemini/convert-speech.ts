/**
 * OpenAI audio output (`modalities` with `audio`, `audio: {voice, format}`) → Gemini TTS
 * (issue 23 row 3; gemini-more-fields §3). Pure; undefined when no audio is asked for.
 *
 * Gemini answers audio only from its TTS models, and only audio: `["audio"]` and OpenAI's usual
 * `["text", "audio"]` both become `responseModalities: ["AUDIO"]` (there is no transcript to
 * give). `voice` names one of Gemini's 30 prebuilt voices (any case; OpenAI's own voice names
 * have no Gemini twin, so they are a 400 naming the voice, as is a custom `{id}`). Gemini sends
 * 24 kHz 16-bit mono PCM, which is OpenAI's `pcm16` as is, or `wav` with a RIFF header; other
 * formats would need transcoding and are a 400, as is `wav` when streaming (OpenAI streams pcm16
 * only).
 */
import { InvalidRequestError } from '../../errors.js';
import type { ChatCompletionRequest } from '../../openai/chat-request.js';
import { getModelCapabilities } from './capabilities.js';

/** The prebuilt voices of every Gemini TTS model (DOC speech-generation). */
const VOICES = [
  'Zephyr', 'Puck', 'Charon', 'Kore', 'Fenrir', 'Leda', 'Orus', 'Aoede', 'Callirrhoe', 'Autonoe',
  'Enceladus', 'Iapetus', 'Umbriel', 'Algieba', 'Despina', 'Erinome', 'Algenib', 'Rasalgethi', 'Laomedeia', 'Achernar',
  'Alnilam', 'Schedar', 'Gacrux', 'Pulcherrima', 'Achird', 'Zubenelgenubi', 'Vindemiatrix', 'Sadachbia', 'Sadaltager', 'Sulafat',
];
const BY_LOWER = new Map(VOICES.map((v) => [v.toLowerCase(), v]));

export type AudioFormat = 'wav' | 'pcm16';

export interface GeminiSpeech {
  responseModalities: ['AUDIO'];
  speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: string } } };
  format: AudioFormat;
}

export function convertSpeech(
  request: Pick<ChatCompletionRequest, 'modalities' | 'audio' | 'stream'>,
  model: string,
): GeminiSpeech | undefined {
  const wantsAudio = request.modalities?.includes('audio') === true;
  if (!wantsAudio) {
    if (request.audio != null) throw new InvalidRequestError('audio: requires modalities to include "audio"', { param: 'audio' });
    return undefined;
  }
  const caps = getModelCapabilities(model);
  if (!caps.audioOutput) {
    throw new InvalidRequestError(`modalities: ${model} does not answer audio; Gemini's TTS models do (e.g. gemini-2.5-flash-preview-tts)`, {
      param: 'modalities',
      code: 'unsupported_parameter',
    });
  }
  if (request.modalities!.includes('image')) {
    throw new InvalidRequestError('modalities: audio cannot be combined with image', { param: 'modalities', code: 'unsupported_parameter' });
  }
  const audio = request.audio;
  if (audio == null) throw new InvalidRequestError('audio: required when modalities include "audio"', { param: 'audio' });
  const asked = typeof audio.voice === 'string' ? audio.voice : audio.voice.id;
  const voiceName = BY_LOWER.get(asked.toLowerCase());
  if (voiceName === undefined) {
    throw new InvalidRequestError(`audio.voice: ${JSON.stringify(asked)} is not a Gemini voice; use one of ${VOICES.join(', ')}`, {
      param: 'audio.voice',
      code: 'unsupported_parameter',
    });
  }
  if (audio.format !== 'wav' && audio.format !== 'pcm16') {
    throw new InvalidRequestError(`audio.format: Gemini answers PCM, given as pcm16 or wav, not ${audio.format}`, {
      param: 'audio.format',
      code: 'unsupported_parameter',
    });
  }
  if (request.stream === true) {
    if (audio.format !== 'pcm16') throw new InvalidRequestError('audio.format: streamed audio is pcm16 (as OpenAI streams it)', { param: 'audio.format' });
    if (!caps.streamsAudio) throw new InvalidRequestError(`stream: ${model} answers audio unstreamed only`, { param: 'stream', code: 'unsupported_parameter' });
  }
  return {
    responseModalities: ['AUDIO'],
    speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName } } },
    format: audio.format,
  };
}

/** Sample rate of a Gemini audio MIME type (`audio/L16;codec=pcm;rate=24000`); 24000 when unsaid. */
export function sampleRateOf(mimeType: string | undefined): number {
  const m = /rate=(\d+)/.exec(mimeType ?? '');
  return m ? Number(m[1]) : 24_000;
}

/** Raw 16-bit mono little-endian PCM wrapped as a WAV file (44-byte RIFF header, PCM format 1). */
export function wavFromPcm(pcm: Buffer, rate: number): Buffer {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + pcm.length, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16); // fmt chunk size
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 2, 28); // byte rate
  header.writeUInt16LE(2, 32); // block align
  header.writeUInt16LE(16, 34); // bits per sample
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(pcm.length, 40);
  return Buffer.concat([header, pcm]);
}
