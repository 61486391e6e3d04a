/**
 * The media types Gemini accepts in a prompt (issue 3 item 2, the seed's lists; gemini-wire §2.2),
 * shared by the files route, the media fetcher and the Gemini provider's `media.ts`. Pure.
 *
 * `text/*` and HTML documents are accepted but go upstream as `text/plain` (DESIGN Decision 11).
 */

export const IMAGE_MIME_TYPES: readonly string[] = ['image/png', 'image/jpeg', 'image/webp', 'image/heic', 'image/heif'];

export const AUDIO_MIME_TYPES: readonly string[] = [
  'audio/wav',
  'audio/x-wav',
  'audio/wave',
  'audio/mp3',
  'audio/aiff',
  'audio/x-aiff',
  'audio/aac',
  'audio/ogg',
  'audio/flac',
  'audio/pcm',
  'audio/l16',
  'audio/m4a',
  'audio/x-m4a',
  'audio/mpeg',
  'audio/mpga',
  'audio/mp4',
  'audio/webm',
];

export const VIDEO_MIME_TYPES: readonly string[] = [
  'video/mp4',
  'video/mpeg',
  'video/mov',
  'video/quicktime',
  'video/avi',
  'video/x-msvideo',
  'video/webm',
  'video/wmv',
  'video/x-ms-wmv',
  'video/x-flv',
  'video/mpg',
  'video/3gpp',
];

export const DOCUMENT_MIME_TYPES: readonly string[] = ['application/pdf'];

/** Every type that goes upstream as it is (text is normalised instead, see `normalizeMediaMimeType`). */
export const MEDIA_MIME_TYPES: ReadonlySet<string> = new Set([
  ...IMAGE_MIME_TYPES,
  ...AUDIO_MIME_TYPES,
  ...VIDEO_MIME_TYPES,
  ...DOCUMENT_MIME_TYPES,
]);

/**
 * The MIME type Gemini gets for a type we accept, or undefined when unsupported. Parameters
 * (`; charset=utf-8`) and case are ignored; `text/*` and HTML become `text/plain`.
 */
export function normalizeMediaMimeType(mime: string): string | undefined {
  const semicolon = mime.indexOf(';');
  const m = (semicolon === -1 ? mime : mime.slice(0, semicolon)).trim().toLowerCase();
  if (MEDIA_MIME_TYPES.has(m)) return m;
  if (m.startsWith('text/') || m === 'application/xhtml+xml') return 'text/plain';
  return undefined;
}

/** File extension → MIME type, for parts that arrive as `application/octet-stream` or untyped. */
const BY_EXTENSION: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  heic: 'image/heic',
  heif: 'image/heif',
  wav: 'audio/wav',
  mp3: 'audio/mp3',
  aif: 'audio/aiff',
  aiff: 'audio/aiff',
  aac: 'audio/aac',
  ogg: 'audio/ogg',
  oga: 'audio/ogg',
  flac: 'audio/flac',
  pcm: 'audio/pcm',
  m4a: 'audio/m4a',
  mpga: 'audio/mpga',
  mp4: 'video/mp4',
  mpeg: 'video/mpeg',
  mpg: 'video/mpg',
  mov: 'video/mov',
  avi: 'video/avi',
  webm: 'video/webm',
  wmv: 'video/wmv',
  flv: 'video/x-flv',
  '3gp': 'video/3gpp',
  pdf: 'application/pdf',
  txt: 'text/plain',
  md: 'text/markdown',
  csv: 'text/csv',
  html: 'text/html',
  htm: 'text/html',
  xml: 'text/xml',
};

/** The MIME type a file name's extension implies, or undefined when it has none we know. */
export function mimeTypeFromFilename(filename: string): string | undefined {
  const dot = filename.lastIndexOf('.');
  if (dot === -1 || dot === filename.length - 1) return undefined;
  return BY_EXTENSION[filename.slice(dot + 1).toLowerCase()];
}
