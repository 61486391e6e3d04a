// Which emulated model takes which issue-23 field, and the 400 it answers otherwise. Written from
// gemini-more-fields.md (§1 URL context models, §4 logprobs, §9 service tiers, §10 candidateCount)
// alone; docs/gemini-fields.md lists the sources. Where Google's exact error text is not on
// record the message is the emulator's own wording (marked "emulator wording").

import { googleError, type GoogleErrorBody } from '../errors.js';
import { isGemini3, isImageModel } from '../models.js';

/** The request fields these checks read (the emulator's own view of the parsed request). */
export interface FeatureRequest {
  contents?: ReadonlyArray<{ parts?: ReadonlyArray<object> }>;
  tools?: Array<{ urlContext?: object; googleSearch?: object }>;
  generationConfig?: { candidateCount?: number; responseLogprobs?: boolean; logprobs?: number; mediaResolution?: string };
  serviceTier?: string;
}

const fail = (message: string): GoogleErrorBody => googleError(400, message);

/** §2: Google Search on 2.0 and later, except 2.0 Flash-Lite and 2.5 Flash Image (and TTS models). */
export function takesGoogleSearch(model: string): boolean {
  return !model.startsWith('gemini-2.0-flash-lite') && !model.startsWith('gemini-2.5-flash-image') && !model.includes('-tts');
}

/** §1: 2.5 and 3.x text models (the URL-context page's list), not image, TTS or computer-use models. */
export function takesUrlContext(model: string): boolean {
  return (model.startsWith('gemini-2.5') || isGemini3(model)) && !isImageModel(model) && !model.includes('-tts') && !model.includes('computer-use');
}

/**
 * §4: logprobs worked on gemini-2.0-flash; 2.5 answers "Logprobs is not enabled for models/…";
 * 3.5 Flash refuses on Vertex; other Gemini 3 models are unverified, so the emulator refuses them
 * too (a real model that allows them simply answers).
 */
export function takesLogprobs(model: string): boolean {
  return model.startsWith('gemini-2.0');
}

/** §9: flex and priority on 2.5 and later text models. */
export function takesServiceTier(model: string): boolean {
  return (model.startsWith('gemini-2.5') || isGemini3(model)) && !model.includes('-tts') && !model.includes('computer-use');
}

/** §10: several candidates on 2.x text models only. */
function maxCandidates(model: string): number {
  return isGemini3(model) || isImageModel(model) || model.includes('-tts') ? 1 : 8;
}

/**
 * §5, §6: per-part `mediaResolution` is Gemini 3 only (ULTRA_HIGH only per part);
 * `videoMetadata` only beside media data, fps in (0, 24].
 */
function checkMediaOptions(req: FeatureRequest, model: string): GoogleErrorBody | null {
  if (req.generationConfig?.mediaResolution === 'MEDIA_RESOLUTION_ULTRA_HIGH') {
    return fail('MEDIA_RESOLUTION_ULTRA_HIGH is only supported as a per-part media resolution.'); // emulator wording
  }
  const contents = req.contents ?? [];
  for (let i = 0; i < contents.length; i++) {
    const parts = contents[i]!.parts ?? [];
    for (let j = 0; j < parts.length; j++) {
      const p = parts[j] as { mediaResolution?: unknown; videoMetadata?: unknown; inlineData?: unknown; fileData?: unknown };
      if (p.mediaResolution !== undefined && !isGemini3(model)) {
        return fail(`Part-level media resolution is not supported for models/${model}.`); // emulator wording
      }
      const video = p.videoMetadata as { fps?: number } | undefined;
      if (video === undefined) continue;
      if (p.inlineData === undefined && p.fileData === undefined) {
        return fail(`* GenerateContentRequest.contents[${i}].parts[${j}].video_metadata: video_metadata requires inline_data or file_data.\n`); // emulator wording
      }
      if (video.fps !== undefined && !(video.fps > 0 && video.fps <= 24)) {
        return fail(`* GenerateContentRequest.contents[${i}].parts[${j}].video_metadata.fps: must be in (0, 24].\n`); // emulator wording
      }
    }
  }
  return null;
}

/** The first issue-23 field `model` refuses, as Google's 400; null when every field is fine. */
export function checkModelSupport(req: FeatureRequest, model: string): GoogleErrorBody | null {
  const media = checkMediaOptions(req, model);
  if (media) return media;
  if ((req.tools ?? []).some((t) => t.urlContext !== undefined) && !takesUrlContext(model)) {
    return fail(`Url context tool is not supported for models/${model}.`); // emulator wording
  }
  if ((req.tools ?? []).some((t) => t.googleSearch !== undefined) && !takesGoogleSearch(model)) {
    return fail(`Search Grounding is not supported for models/${model}.`); // emulator wording
  }
  const gc = req.generationConfig ?? {};
  if (gc.logprobs !== undefined && gc.responseLogprobs !== true) {
    return fail('logprobs is only valid if response_logprobs is true.'); // emulator wording (proto comment)
  }
  if (gc.logprobs !== undefined && (gc.logprobs < 0 || gc.logprobs > 20)) {
    return fail('logprobs must be in the range [0, 20].'); // emulator wording (proto comment)
  }
  if (gc.responseLogprobs === true && !takesLogprobs(model)) return fail(`Logprobs is not enabled for models/${model}`);
  const n = gc.candidateCount ?? 1;
  if (n < 1 || n > 8) return fail('candidate_count must be between 1 and 8.'); // emulator wording
  if (n > maxCandidates(model)) return fail('Multiple candidates is not enabled for this model');
  const tier = req.serviceTier;
  if (tier !== undefined && tier !== 'STANDARD' && tier !== 'UNSPECIFIED' && tier !== 'SERVICE_TIER_UNSPECIFIED' && !takesServiceTier(model)) {
    return fail(`Service tier ${tier.toLowerCase()} is not supported for models/${model}.`); // emulator wording
  }
  return null;
}
