/**
 * Gemini grounding metadata (gemini-wire §8.2) → Responses `url_citation` annotations and a
 * `web_search_call` item. Pure. The chat path passes `groundingMetadata` through untouched
 * (non-strict), so this reads it leniently: anything missing or malformed yields nothing.
 *
 * Segment offsets are UTF-8 byte offsets into the answer text (gemini-wire §8.2); annotations
 * use character offsets, so they are converted against the message text.
 */
import type { OutputWebSearchCallItem, UrlCitation } from './response-object.js';

interface Web {
  uri?: unknown;
  title?: unknown;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function chunks(metadata: Record<string, unknown>): Array<{ url: string; title: string } | undefined> {
  const list = Array.isArray(metadata.groundingChunks) ? metadata.groundingChunks : [];
  return list.map((chunk) => {
    const web = record(record(chunk)?.web) as Web | undefined;
    if (!web || typeof web.uri !== 'string') return undefined;
    return { url: web.uri, title: typeof web.title === 'string' ? web.title : '' };
  });
}

/** Character offset of a UTF-8 byte offset in `text` (clamped). */
function charOffset(text: string, bytes: number): number {
  const buf = Buffer.from(text, 'utf8');
  const clamped = Math.max(0, Math.min(bytes, buf.length));
  return buf.subarray(0, clamped).toString('utf8').length;
}

export function groundingAnnotations(text: string, groundingMetadata: unknown): UrlCitation[] {
  const metadata = record(groundingMetadata);
  if (!metadata) return [];
  const sources = chunks(metadata);
  const supports = Array.isArray(metadata.groundingSupports) ? metadata.groundingSupports : [];
  const out: UrlCitation[] = [];
  for (const support of supports) {
    const s = record(support);
    const segment = record(s?.segment);
    const indices = Array.isArray(s?.groundingChunkIndices) ? s.groundingChunkIndices : [];
    const start = typeof segment?.startIndex === 'number' ? segment.startIndex : 0;
    const end = typeof segment?.endIndex === 'number' ? segment.endIndex : undefined;
    if (end === undefined) continue;
    for (const index of indices) {
      const source = typeof index === 'number' ? sources[index] : undefined;
      if (!source) continue;
      out.push({ type: 'url_citation', start_index: charOffset(text, start), end_index: charOffset(text, end), url: source.url, title: source.title });
    }
  }
  return out;
}

/** The search Gemini ran, as a `web_search_call` item; undefined when it ran none. */
export function webSearchCall(groundingMetadata: unknown, id: string): OutputWebSearchCallItem | undefined {
  const metadata = record(groundingMetadata);
  if (!metadata) return undefined;
  const queries = (Array.isArray(metadata.webSearchQueries) ? metadata.webSearchQueries : []).filter(
    (q): q is string => typeof q === 'string',
  );
  if (queries.length === 0) return undefined;
  const sources = chunks(metadata)
    .filter((c): c is { url: string; title: string } => c !== undefined)
    .map((c) => ({ type: 'url' as const, url: c.url }));
  return {
    type: 'web_search_call',
    id,
    status: 'completed',
    action: { type: 'search', query: queries[0]!, ...(queries.length > 1 ? { queries } : {}), ...(sources.length > 0 ? { sources } : {}) },
  };
}
