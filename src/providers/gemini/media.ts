/**
 * One OpenAI media part (`image_url`, `input_audio`) → one Gemini part (issue 3 item 2;
 * DESIGN Decision 11). Pure: anything that needs I/O (a file's MIME type from the files API, the
 * bytes of a fetched URL) is looked up by the provider first and handed in as `ResolvedMedia`.
 *
 * Base64 payloads are passed through as they are (only their alphabet is checked), so a large
 * video is never decoded and re-encoded.
 */
import { InvalidRequestError } from '../../errors.js';
import { mimeTypeFromFilename, normalizeMediaMimeType } from '../../media/mime-types.js';
import { isBlobRef } from '../../openai/inline-blobs.js';

export type GeminiMediaPart =
  | { inlineData: { mimeType: string; data: string } }
  | { fileData: { mimeType?: string; fileUri: string } };

/** What the provider learned about a URL before conversion. */
export type ResolvedMedia = { kind: 'file'; mimeType: string } | { kind: 'inline'; mimeType: string; data: string };

export interface MediaContext {
  /** Target base URL: its `/v1beta/files/<id>` URLs are provider files too. */
  baseUrl?: string;
  /** Results of the provider's lookups, keyed by the URL as the client wrote it. */
  media?: ReadonlyMap<string, ResolvedMedia>;
}

const GOOGLE_HOST = 'generativelanguage.googleapis.com';

/** `input_audio.format` → MIME type. */
const AUDIO_FORMATS: Record<string, string> = {
  wav: 'audio/wav',
  mp3: 'audio/mp3',
  aiff: 'audio/aiff',
  aac: 'audio/aac',
  ogg: 'audio/ogg',
  opus: 'audio/ogg',
  flac: 'audio/flac',
  pcm: 'audio/pcm',
  pcm16: 'audio/pcm',
  m4a: 'audio/m4a',
  mpeg: 'audio/mpeg',
  mpga: 'audio/mpga',
  mp4: 'audio/mp4',
  webm: 'audio/webm',
};

const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

/** The MIME type Gemini gets for a media type we accept (shared table, `src/media/mime-types.ts`). */
export const normalizeMimeType = normalizeMediaMimeType;

/** The id in a provider file URL (`…/v1beta/files/<id>` on Google's host or `baseUrl`'s host). */
export function providerFileId(url: string, baseUrl?: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  const hosts = new Set([GOOGLE_HOST]);
  if (baseUrl) {
    try {
      hosts.add(new URL(baseUrl).host);
    } catch {
      // a bad base URL only means its files are not recognised
    }
  }
  if (!hosts.has(parsed.host)) return undefined;
  const m = /\/v1beta\/files\/([a-z0-9-]{1,40})$/.exec(parsed.pathname);
  return m ? m[1] : undefined;
}

/** Public YouTube video pages, which Gemini reads directly as `fileData` (gemini-wire §13.3). */
export function isYouTubeUrl(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  const host = parsed.hostname.toLowerCase();
  if (host === 'youtu.be') return parsed.pathname.length > 1;
  if (host === 'youtube.com' || host === 'www.youtube.com' || host === 'm.youtube.com') {
    return (
      (parsed.pathname === '/watch' && parsed.searchParams.has('v')) ||
      parsed.pathname.startsWith('/shorts/') ||
      parsed.pathname.startsWith('/live/')
    );
  }
  return false;
}

/** Whether the provider must look this URL up before conversion, and how. */
export function mediaLookupKind(
  url: string,
  explicitMime: string | undefined,
  baseUrl?: string,
): 'file-metadata' | 'fetch' | undefined {
  if (url.startsWith('data:')) return undefined;
  if (providerFileId(url, baseUrl) !== undefined) return explicitMime ? undefined : 'file-metadata';
  if (isYouTubeUrl(url)) return undefined;
  if (/^https?:\/\//i.test(url)) return 'fetch';
  return undefined;
}

function parseDataUri(url: string, param: string): { mimeType: string; data: string } {
  const comma = url.indexOf(',');
  const header = comma > 0 ? url.slice(5, comma) : '';
  const params = header.split(';');
  const mime = params[0] ?? '';
  if (comma < 0 || !params.slice(1).some((p) => p.toLowerCase() === 'base64') || mime === '') {
    throw new InvalidRequestError(`${param}: malformed data URI; expected data:<mime type>;base64,<data>`, {
      param,
      code: 'invalid_media',
    });
  }
  const data = url.slice(comma + 1);
  // A payload held by reference was checked as base64 when the body was read.
  if (!isBlobRef(data) && !BASE64.test(data)) {
    throw new InvalidRequestError(`${param}: the data URI's payload is not base64`, { param, code: 'invalid_media' });
  }
  return { mimeType: mime, data };
}

function checkedMime(mime: string, param: string): string {
  const normalized = normalizeMimeType(mime);
  if (normalized === undefined) {
    throw new InvalidRequestError(`${param}: media type ${JSON.stringify(mime)} is not supported by Gemini`, {
      param,
      code: 'unsupported_media_type',
    });
  }
  return normalized;
}

/** `image_url` part → Gemini part. `param` names the part, e.g. `messages[2].content[1]`. */
export function convertImageUrl(
  imageUrl: { url: string; mime_type?: string | undefined },
  param: string,
  ctx: MediaContext = {},
): GeminiMediaPart {
  const { url } = imageUrl;
  if (url.startsWith('data:')) {
    const { mimeType, data } = parseDataUri(url, param);
    return { inlineData: { mimeType: checkedMime(mimeType, param), data } };
  }
  if (providerFileId(url, ctx.baseUrl) !== undefined) {
    const mime = imageUrl.mime_type ?? ctx.media?.get(url)?.mimeType;
    if (mime === undefined) {
      throw new InvalidRequestError(`${param}: the MIME type of ${url} is unknown; set image_url.mime_type`, {
        param,
        code: 'invalid_media',
      });
    }
    return { fileData: { mimeType: checkedMime(mime, param), fileUri: url } };
  }
  if (isYouTubeUrl(url)) return { fileData: { fileUri: url } };
  const fetched = ctx.media?.get(url);
  // A URL the provider resolved as a file reference (Vertex AI: `gs://` and `https://` URIs).
  if (fetched?.kind === 'file') return { fileData: { mimeType: checkedMime(fetched.mimeType, param), fileUri: url } };
  if (fetched?.kind === 'inline') {
    return { inlineData: { mimeType: checkedMime(fetched.mimeType, param), data: fetched.data } };
  }
  if (/^https?:\/\//i.test(url)) {
    throw new InvalidRequestError(
      `${param}: media URLs are not fetched by this gateway; send a data URI, a provider file URL (upload through /v1/files) or a YouTube URL`,
      { param, code: 'media_url_not_allowed' },
    );
  }
  throw new InvalidRequestError(`${param}: unsupported media URL; expected a data URI or an https URL`, {
    param,
    code: 'invalid_media',
  });
}

/** `input_audio` part → Gemini `inlineData`. */
export function convertInputAudio(audio: { data: string; format: string }, param: string): GeminiMediaPart {
  const mimeType = AUDIO_FORMATS[audio.format.toLowerCase()];
  if (mimeType === undefined) {
    throw new InvalidRequestError(`${param}: audio format ${JSON.stringify(audio.format)} is not supported`, {
      param,
      code: 'unsupported_media_type',
    });
  }
  if (!BASE64.test(audio.data)) {
    throw new InvalidRequestError(`${param}: input_audio.data is not base64`, { param, code: 'invalid_media' });
  }
  return { inlineData: { mimeType, data: audio.data } };
}

/** The provider file URL of a `file` part's `file_id` (a file uploaded through `POST /v1/files`). */
export function fileIdUrl(fileId: string, baseUrl: string | undefined): string {
  return `${(baseUrl ?? `https://${GOOGLE_HOST}`).replace(/\/+$/, '')}/v1beta/files/${fileId}`;
}

/**
 * OpenAI `file` part → Gemini part: `file_data` as a data URI (or bare base64 typed by
 * `filename`) → `inlineData`; `file_id` → `fileData` of that provider file on the target.
 */
export function convertFilePart(
  file: { file_data?: string | undefined; file_id?: string | undefined; filename?: string | undefined },
  param: string,
  ctx: MediaContext = {},
): GeminiMediaPart {
  if (file.file_data !== undefined) {
    const data = file.file_data;
    if (data.startsWith('data:')) return convertImageUrl({ url: data }, `${param}.file.file_data`, ctx);
    const mime = file.filename !== undefined ? mimeTypeFromFilename(file.filename) : undefined;
    if (mime === undefined) {
      throw new InvalidRequestError(
        `${param}.file: file_data without a data: prefix needs a filename with a known extension (.pdf, .png, …) to give its type`,
        { param: `${param}.file.filename`, code: 'invalid_media' },
      );
    }
    if (!isBlobRef(data) && !BASE64.test(data)) {
      throw new InvalidRequestError(`${param}.file.file_data: not base64`, { param: `${param}.file.file_data`, code: 'invalid_media' });
    }
    return { inlineData: { mimeType: checkedMime(mime, param), data } };
  }
  const id = file.file_id ?? '';
  if (!/^[a-z0-9-]{1,40}$/.test(id)) {
    throw new InvalidRequestError(`${param}.file.file_id: not a file id from POST /v1/files`, {
      param: `${param}.file.file_id`,
      code: 'invalid_media',
    });
  }
  return convertImageUrl({ url: fileIdUrl(id, ctx.baseUrl) }, param, ctx);
}
