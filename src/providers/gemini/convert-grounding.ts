/**
 * Gemini `groundingMetadata` → OpenAI `url_citation` annotations (issue 23 row 2;
 * gemini-more-fields §2). Pure; shared by the response converter and the stream translator.
 *
 * Each grounding support cites a segment of one part, in UTF-8 **bytes** from the part's start
 * (end exclusive; a missing `startIndex` is 0, proto3 omits zeros). OpenAI's `start_index` /
 * `end_index` are character positions in `message.content`: here UTF-16 positions (what
 * `content.slice(start, end)` takes in JavaScript), end exclusive, so the byte offsets are
 * converted against the part's text and shifted by where that part begins in `content`. One
 * annotation per cited web chunk; chunks of other kinds (maps, retrieved context) are skipped.
 */
import type { UrlCitationAnnotation } from '../../openai/chat-response.js';

/** Where a text part's text begins in the answer's `content`, and the text itself. */
export interface PartText {
  at: number;
  text: string;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** UTF-16 index in `text` of UTF-8 byte offset `bytes` (a cut inside a character stops before it). */
export function charIndexOfByte(text: string, bytes: number): number {
  let seen = 0;
  let i = 0;
  while (i < text.length && seen < bytes) {
    const cp = text.codePointAt(i)!;
    const width = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    if (seen + width > bytes) break;
    seen += width;
    i += cp > 0xffff ? 2 : 1;
  }
  return i;
}

/**
 * The citations of `metadata` against `parts` (indexed like the candidate's parts; undefined for
 * a part that is not answer text). Malformed or missing pieces yield nothing, never a throw.
 */
export function groundingAnnotations(metadata: unknown, parts: ReadonlyArray<PartText | undefined>): UrlCitationAnnotation[] {
  const grounding = record(metadata);
  if (!grounding) return [];
  const chunks = Array.isArray(grounding.groundingChunks) ? grounding.groundingChunks : [];
  const supports = Array.isArray(grounding.groundingSupports) ? grounding.groundingSupports : [];
  const out: UrlCitationAnnotation[] = [];
  for (const support of supports) {
    const s = record(support);
    const segment = record(s?.segment);
    if (!segment || typeof segment.endIndex !== 'number') continue;
    const part = parts[typeof segment.partIndex === 'number' ? segment.partIndex : 0];
    if (!part) continue;
    const start = part.at + charIndexOfByte(part.text, typeof segment.startIndex === 'number' ? segment.startIndex : 0);
    const end = part.at + charIndexOfByte(part.text, segment.endIndex);
    for (const index of Array.isArray(s?.groundingChunkIndices) ? s.groundingChunkIndices : []) {
      const web = record(record(typeof index === 'number' ? chunks[index] : undefined)?.web);
      if (!web || typeof web.uri !== 'string') continue;
      const title = typeof web.title === 'string' ? web.title : '';
      out.push({ type: 'url_citation', url_citation: { start_index: start, end_index: end, url: web.uri, title } });
    }
  }
  return out;
}
