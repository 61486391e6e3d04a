/**
 * Media bodies never enter the Responses store (issue 14 point 4). Pure.
 *
 * `stripMedia` (before a record is stored): a data URI in an `input_image` / `input_file` becomes
 * `null`; URLs and file ids are references, not bodies, and stay. The stored part then looks like
 * what OpenAI lists for an input image whose URL was not asked for (`image_url: null`).
 * `replayMedia` (when a stored item is sent to Gemini again): such a part becomes a short text
 * saying the media was not kept, with an `omitted_media` warning, so the model is told rather than
 * silently missing it.
 */
import type { MessagePart } from './responses-request.js';
import type { StoredInputItem } from './response-store.js';

export const OMITTED_MEDIA_TEXT = '[media omitted: the gateway does not keep media bodies in its response store]';

type Part = MessagePart;

function stripPart(part: Part): Part {
  if (part.type === 'input_image' && typeof part.image_url === 'string' && part.image_url.startsWith('data:')) {
    return { ...part, image_url: null };
  }
  if (part.type === 'input_file' && typeof part.file_data === 'string') {
    return { ...part, file_data: null };
  }
  return part;
}

function isOmitted(part: Part): boolean {
  if (part.type === 'input_image') return part.image_url == null && part.file_id == null;
  if (part.type === 'input_file') return part.file_data == null && part.file_url == null && part.file_id == null;
  return false;
}

function mapParts<T extends StoredInputItem>(item: T, map: (part: Part) => Part): T {
  if (item.type === 'message' && Array.isArray(item.content)) return { ...item, content: item.content.map(map) };
  if (item.type === 'function_call_output' && Array.isArray(item.output)) {
    return { ...item, output: item.output.map((p) => map(p) as Extract<Part, { type: 'input_text' | 'input_image' | 'input_file' }>) };
  }
  return item;
}

export function stripMedia<T extends StoredInputItem>(item: T): T {
  return mapParts(item, stripPart);
}

export function replayMedia<T extends StoredInputItem>(item: T, warnings: string[]): T {
  return mapParts(item, (part) => {
    if (!isOmitted(part)) return part;
    if (!warnings.includes('omitted_media')) warnings.push('omitted_media');
    return { type: 'input_text', text: OMITTED_MEDIA_TEXT };
  });
}
