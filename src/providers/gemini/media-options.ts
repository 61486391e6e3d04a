/**
 * Per-part media options (issue 23 row 5; gemini-more-fields §5, §6): OpenAI's `image_url.detail`
 * → Gemini's media resolution, and LiteLLM's `video_metadata` → `videoMetadata`. Pure.
 *
 * - `detail` low/high → `MEDIA_RESOLUTION_LOW`/`_HIGH`; `auto` (or none) sends nothing. Gemini 3
 *   takes it per part (`part.mediaResolution.level`); older models only request-wide
 *   (`generationConfig.mediaResolution`), so there the parts must agree (a 400 otherwise, rather
 *   than silently picking one);
 * - `video_metadata {start_offset, end_offset, fps}` sits beside the part's `fileData` /
 *   `inlineData`; offsets are proto Durations (`"10s"`, `"62.5s"`; a number means seconds), fps in
 *   (0, 24]; only on video parts (a video MIME type or a YouTube URL).
 */
import { InvalidRequestError } from '../../errors.js';
import type { GeminiMediaPart } from './media.js';

export type MediaResolutionLevel = 'MEDIA_RESOLUTION_LOW' | 'MEDIA_RESOLUTION_HIGH';

export interface VideoMetadataInput {
  start_offset?: string | number | undefined;
  end_offset?: string | number | undefined;
  fps?: number | undefined;
}

export interface GeminiVideoMetadata {
  startOffset?: string;
  endOffset?: string;
  fps?: number;
}

/** Collects the request-wide resolution of a model without per-part resolution. */
export interface MediaResolutionState {
  perPart: boolean;
  requestWide?: { level: MediaResolutionLevel; param: string };
}

const LEVELS: Readonly<Record<string, MediaResolutionLevel | undefined>> = {
  low: 'MEDIA_RESOLUTION_LOW',
  high: 'MEDIA_RESOLUTION_HIGH',
  auto: undefined,
};
const DURATION = /^\d+(\.\d{1,9})?s$/;

function duration(value: string | number, param: string): string {
  if (typeof value === 'number') {
    if (Number.isFinite(value) && value >= 0) return `${value}s`;
  } else if (DURATION.test(value)) return value;
  throw new InvalidRequestError(`${param}: a duration in seconds, e.g. "10s" or 10`, { param });
}

export function convertVideoMetadata(meta: VideoMetadataInput, param: string): GeminiVideoMetadata {
  const out: GeminiVideoMetadata = {};
  if (meta.start_offset !== undefined) out.startOffset = duration(meta.start_offset, `${param}.start_offset`);
  if (meta.end_offset !== undefined) out.endOffset = duration(meta.end_offset, `${param}.end_offset`);
  if (meta.fps !== undefined) {
    if (!(meta.fps > 0 && meta.fps <= 24)) throw new InvalidRequestError(`${param}.fps: Gemini samples 0 < fps <= 24`, { param: `${param}.fps` });
    out.fps = meta.fps;
  }
  return out;
}

function isVideo(part: GeminiMediaPart): boolean {
  const mime = 'inlineData' in part ? part.inlineData.mimeType : part.fileData.mimeType;
  return mime === undefined ? true : mime.startsWith('video/'); // a YouTube URL has no MIME type
}

/**
 * The part with its media options applied. `state` gathers a request-wide resolution for models
 * without per-part resolution; `param` names the options object (`…content[1].image_url`).
 */
export function applyMediaOptions(
  part: GeminiMediaPart,
  options: { detail?: string | undefined; video_metadata?: VideoMetadataInput | undefined },
  param: string,
  state: MediaResolutionState,
): GeminiMediaPart & { mediaResolution?: { level: MediaResolutionLevel }; videoMetadata?: GeminiVideoMetadata } {
  const out: GeminiMediaPart & { mediaResolution?: { level: MediaResolutionLevel }; videoMetadata?: GeminiVideoMetadata } = { ...part };
  const level = options.detail === undefined ? undefined : LEVELS[options.detail];
  if (level !== undefined) {
    if (state.perPart) out.mediaResolution = { level };
    else if (state.requestWide === undefined) state.requestWide = { level, param };
    else if (state.requestWide.level !== level) {
      throw new InvalidRequestError(
        `${param}.detail: this model takes one media resolution per request, and ${state.requestWide.param}.detail asked for another`,
        { param: `${param}.detail`, code: 'unsupported_parameter' },
      );
    }
  }
  if (options.video_metadata !== undefined) {
    if (!isVideo(part)) {
      throw new InvalidRequestError(`${param}: video_metadata applies to video parts only`, { param: `${param}.video_metadata` });
    }
    out.videoMetadata = convertVideoMetadata(options.video_metadata, `${param}.video_metadata`);
  }
  return out;
}
