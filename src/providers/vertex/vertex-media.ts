/**
 * Media URLs for Vertex AI, which has no Files API (vertex-ai.md §2.1: "does not support uploading
 * files. You can share files through a GCS bucket"). Pure; replaces the AI Studio lookups.
 *
 * - `gs://…` and `https://…` URIs go as `fileData` with their MIME type: `image_url.mime_type`
 *   when given, else the file extension (Portkey does the same: mime from extension); a URI whose
 *   type cannot be told is a 400 asking for `mime_type` (Vertex requires it in `fileData`).
 * - A `…/v1beta/files/<id>` URL (an AI Studio file) or a `file_id` part is a 400 naming the part.
 * - Data URIs and YouTube pages are left to the shared conversion.
 */
import { InvalidRequestError } from '../../errors.js';
import { mimeTypeFromFilename } from '../../media/mime-types.js';
import type { ChatCompletionRequest } from '../../openai/chat-request.js';
import { isYouTubeUrl, type ResolvedMedia } from '../gemini/media.js';

const FILES_API_PATH = /\/v1beta\/files\/[^/]+$/;

function noFilesApi(param: string): InvalidRequestError {
  return new InvalidRequestError(
    `${param}: Vertex AI has no Files API; put the file in Cloud Storage and send its gs:// URI (or an https URL) with mime_type`,
    { param, code: 'unsupported_media' },
  );
}

function visit(url: string, explicitMime: string | undefined, param: string, out: Map<string, ResolvedMedia>): void {
  if (url.startsWith('data:') || out.has(url)) return;
  const isGcs = url.startsWith('gs://');
  const isHttps = /^https:\/\//i.test(url);
  if (!isGcs && !isHttps) return; // the shared conversion refuses it, naming the part
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    throw new InvalidRequestError(`${param}: not a valid URL`, { param, code: 'invalid_media' });
  }
  if (isHttps && FILES_API_PATH.test(path)) throw noFilesApi(param);
  if (isHttps && isYouTubeUrl(url)) return;
  const mimeType = explicitMime ?? mimeTypeFromFilename(path);
  if (mimeType === undefined) {
    throw new InvalidRequestError(`${param}: the MIME type of ${url.slice(0, 200)} cannot be told from its name; set image_url.mime_type`, {
      param,
      code: 'invalid_media',
    });
  }
  out.set(url, { kind: 'file', mimeType });
}

export function resolveVertexMedia(request: ChatCompletionRequest): ReadonlyMap<string, ResolvedMedia> {
  const out = new Map<string, ResolvedMedia>();
  for (const [i, message] of request.messages.entries()) {
    if (Array.isArray(message.content)) {
      for (const [j, part] of message.content.entries()) {
        const param = `messages[${i}].content[${j}]`;
        if (part.type === 'image_url') visit(part.image_url.url, part.image_url.mime_type, param, out);
        else if (part.type === 'file' && part.file.file_id !== undefined) throw noFilesApi(`${param}.file.file_id`);
      }
    }
    if (message.role === 'assistant') {
      for (const [j, entry] of (message.content_parts ?? []).entries()) {
        if (entry.type === 'image') visit(entry.image_url.url, undefined, `messages[${i}].content_parts[${j}]`, out);
      }
    }
  }
  return out;
}
