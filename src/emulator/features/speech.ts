// Audio output of the TTS models (gemini-more-fields §3): `responseModalities: ["AUDIO"]` with
// `speechConfig.voiceConfig.prebuiltVoiceConfig.voiceName` (one of the 30 prebuilt voices), and
// the answer as one `inlineData` part `audio/L16;codec=pcm;rate=24000`: headerless signed 16-bit
// little-endian mono PCM. The emulator "speaks" 10 ms of a deterministic tone per character of
// the last user text and counts 25 audio tokens per second (Gemini 3 audio rate, §11).
// 2.5 TTS models do not stream (§3 table); 3.x TTS models stream raw L16 chunks. Pure.

import { googleError, type GoogleErrorBody } from '../errors.js';

export const PCM_RATE = 24_000;
export const PCM_MIME = `audio/L16;codec=pcm;rate=${PCM_RATE}`;
const SAMPLES_PER_CHAR = PCM_RATE / 100;
const AUDIO_TOKENS_PER_SECOND = 25;

/** The 30 prebuilt voices of every TTS model (§3). */
export const VOICES: readonly string[] = [
  'Zephyr', 'Puck', 'Charon', 'Kore', 'Fenrir', 'Leda', 'Orus', 'Aoede', 'Callirrhoe', 'Autonoe',
  'Enceladus', 'Iapetus', 'Umbriel', 'Algieba', 'Despina', 'Erinome', 'Algenib', 'Rasalgethi', 'Laomedeia', 'Achernar',
  'Alnilam', 'Schedar', 'Gacrux', 'Pulcherrima', 'Achird', 'Zubenelgenubi', 'Vindemiatrix', 'Sadachbia', 'Sadaltager', 'Sulafat',
];

export function isTtsModel(model: string): boolean {
  return model.includes('-tts');
}

/** §3 table: the 2.5 preview TTS models answer unary only. */
export function streamsAudio(model: string): boolean {
  return !model.startsWith('gemini-2.5');
}

interface SpeechRequest {
  generationConfig?: { responseModalities?: string[]; speechConfig?: Record<string, unknown> };
}

/** The voice asked for, or undefined (Gemini picks one). */
function voiceOf(speech: Record<string, unknown> | undefined): unknown {
  const voiceConfig = (speech?.voiceConfig ?? speech?.voice_config) as Record<string, unknown> | undefined;
  const prebuilt = (voiceConfig?.prebuiltVoiceConfig ?? voiceConfig?.prebuilt_voice_config) as Record<string, unknown> | undefined;
  return prebuilt?.voiceName ?? prebuilt?.voice_name;
}

/** §2.5: modalities must be ones the model supports; TTS models answer AUDIO only. Null when fine. */
export function checkSpeech(req: SpeechRequest, model: string, stream: boolean): GoogleErrorBody | null {
  const modalities = req.generationConfig?.responseModalities ?? [];
  const audio = modalities.includes('AUDIO');
  const tts = isTtsModel(model);
  if ((audio && !tts) || (tts && (!audio || modalities.length > 1))) {
    const asked = modalities.length > 0 ? modalities.map((m) => m.toLowerCase()).join(',') : 'text';
    return googleError(400, `Model does not support the requested response modalities: ${asked}`);
  }
  if (!tts) return null;
  const voice = voiceOf(req.generationConfig?.speechConfig);
  if (voice !== undefined && !(typeof voice === 'string' && VOICES.includes(voice))) {
    return googleError(400, `Voice ${JSON.stringify(voice)} is not a prebuilt voice.`); // emulator wording
  }
  if (stream && !streamsAudio(model)) return googleError(400, `Streaming is not supported for models/${model}.`); // emulator wording
  return null;
}

/** `n` little-endian 16-bit samples of a repeating ramp, base64. */
export function pcmFor(text: string): { data: string; tokens: number } {
  const samples = Math.max(1, text.length) * SAMPLES_PER_CHAR;
  const buf = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) buf.writeInt16LE(((i % 200) - 100) * 100, i * 2);
  return { data: buf.toString('base64'), tokens: Math.ceil((samples / PCM_RATE) * AUDIO_TOKENS_PER_SECOND) };
}

/** Splits base64 PCM into up to three pieces on sample boundaries (stream chunks). */
export function splitPcm(data: string): string[] {
  const bytes = Buffer.from(data, 'base64');
  const samples = bytes.length / 2;
  if (samples < 3) return [data];
  const cut = (k: number) => Math.floor((samples * k) / 3) * 2;
  return [0, 1, 2].map((k) => bytes.subarray(cut(k), k === 2 ? bytes.length : cut(k + 1)).toString('base64'));
}
