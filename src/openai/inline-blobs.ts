/**
 * Large base64 payloads (inline images, audio, video, PDFs) pass through the gateway without being
 * copied into JavaScript strings: a request body over `LARGE_BODY_BYTES` is scanned once, and every
 * base64 data-URI payload over `BLOB_MIN_BYTES` is replaced, before `JSON.parse`, by a short
 * reference that points into the request's own body buffer. Converters carry the reference like
 * any other string (the data-URI header before it stays visible for MIME checks);
 * `serializeJsonBody` splices the original bytes back in when the upstream body is written.
 *
 * Why: `JSON.parse` + `JSON.stringify` would hold a 20 MB image as the body buffer, its text, the
 * parsed string, the serialised body and its encoding: five copies. With references it is held once.
 *
 * A reference is `\u0000sgblob:<id>`; the NUL cannot come from a client, because the scan leaves any
 * string containing an escape untouched and raw control characters are invalid JSON. References
 * live in a process-wide table until the request that created them releases them.
 */

const LARGE_BODY_BYTES = 1024 * 1024;
const BLOB_MIN_BYTES = 256 * 1024;
const MAX_HEADER_BYTES = 256;
const PREFIX = '\u0000sgblob:';
/** How a reference looks inside `JSON.stringify` output. */
const SERIALIZED_PREFIX = '\\u0000sgblob:';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;

/**
 * Payload bytes by id: the slices of the client's body chunks that make up each payload. A plain
 * dictionary, not a Map: a Map that is added to and deleted from for the life of the process
 * links each rebuilt table to the next, and once one of them is in the old generation the chain
 * keeps every later table, and the body chunks it names, alive until a full collection
 * (server/track-inflight.ts).
 */
const blobs: Record<string, Buffer[] | undefined> = Object.create(null);
/** The dictionary key of an id: ids are digits, and digit keys would be array elements, not entries. */
const slot = (id: string) => `b${id}`;
let nextId = 0;

/** 256-entry table: 1 for bytes of the base64 alphabet (standard and URL-safe) and `=`. */
const BASE64_BYTE = new Uint8Array(256);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_=') BASE64_BYTE[c.charCodeAt(0)] = 1;

export interface ParsedBody {
  value: unknown;
  /** Number of payloads held by reference. */
  blobCount: number;
  /** Drops this body's references; call once the request is done with them. */
  release(): void;
}

/**
 * `JSON.parse` of a request body, with large base64 data-URI payloads kept by reference. The body
 * may be given as the chunks it arrived in: a large body is then never copied into one buffer
 * (copying would leave a second copy of it as garbage until the next collection).
 */
export function parseJsonBody(body: Buffer | readonly Buffer[]): ParsedBody {
  // The common case, a small body in one piece: no view, no scan.
  const single = Buffer.isBuffer(body) ? body : body.length === 1 ? body[0]! : undefined;
  if (single !== undefined && single.length < LARGE_BODY_BYTES) return { value: JSON.parse(single.toString('utf8')), blobCount: 0, release: noop };
  const bytes = new ChunkedBytes(Buffer.isBuffer(body) ? [body] : body);
  if (bytes.length < LARGE_BODY_BYTES) return { value: JSON.parse(bytes.toString(0, bytes.length)), blobCount: 0, release: noop };
  const ids: string[] = [];
  let text = '';
  let copiedUpTo = 0;
  let pos = bytes.indexOf(QUOTE, 0);
  while (pos !== -1) {
    const start = pos + 1;
    const end = closingQuote(bytes, start);
    if (end === -1) break; // unterminated: let JSON.parse report it
    if (end - start >= BLOB_MIN_BYTES) {
      // The header is copied as JSON text (escapes and all); the payload must be pure base64,
      // which also rules out escapes inside it.
      const payloadStart = dataUriPayloadStart(bytes, start, end);
      if (payloadStart !== -1 && bytes.isBase64(payloadStart, end)) {
        const id = String(nextId++);
        blobs[slot(id)] = bytes.subarrays(payloadStart, end);
        ids.push(id);
        text += bytes.toString(copiedUpTo, payloadStart) + SERIALIZED_PREFIX + id;
        copiedUpTo = end;
      }
    }
    pos = bytes.indexOf(QUOTE, end + 1);
  }
  if (ids.length === 0) return { value: JSON.parse(bytes.toString(0, bytes.length)), blobCount: 0, release: noop };
  text += bytes.toString(copiedUpTo, bytes.length);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    release(ids);
    throw err;
  }
  return { value, blobCount: ids.length, release: () => release(ids) };
}

/** True for a string that is a reference made by `parseJsonBody`. */
export function isBlobRef(value: string): boolean {
  return value.startsWith(PREFIX);
}

/** Bytes of a referenced payload (base64 text, as the slices it is held in), or undefined once released. */
export function blobBytes(ref: string): readonly Buffer[] | undefined {
  return isBlobRef(ref) ? blobs[slot(ref.slice(PREFIX.length))] : undefined;
}

/**
 * `JSON.stringify` for an upstream body: a plain string when it holds no references, else the list
 * of buffers to write in order (the payloads as slices of the client's body, not copies).
 * Throws if a reference was already released (a bug: the request outlived its body).
 */
export function serializeJsonBody(value: unknown): string | Buffer[] {
  const json = JSON.stringify(value);
  let at = json.indexOf(SERIALIZED_PREFIX);
  if (at === -1) return json;
  const parts: Buffer[] = [];
  let from = 0;
  while (at !== -1) {
    const idStart = at + SERIALIZED_PREFIX.length;
    let idEnd = idStart;
    while (idEnd < json.length && json.charCodeAt(idEnd) >= 48 && json.charCodeAt(idEnd) <= 57) idEnd++;
    const bytes = blobs[slot(json.slice(idStart, idEnd))];
    if (!bytes) throw new Error('inline payload was released before the upstream body was written');
    parts.push(Buffer.from(json.slice(from, at), 'utf8'), ...bytes);
    from = idEnd;
    at = json.indexOf(SERIALIZED_PREFIX, idEnd);
  }
  parts.push(Buffer.from(json.slice(from), 'utf8'));
  return parts;
}

/** Byte length of a serialised body, for `content-length`. */
export function serializedLength(body: string | Buffer[]): number {
  if (typeof body === 'string') return Buffer.byteLength(body);
  let n = 0;
  for (const b of body) n += b.length;
  return n;
}

function release(ids: string[]): void {
  for (const id of ids) delete blobs[slot(id)];
}

function noop(): void {}

/** Index of the quote closing the string that starts at `start`, skipping escaped quotes. */
function closingQuote(bytes: ChunkedBytes, start: number): number {
  let pos = start;
  for (;;) {
    const quote = bytes.indexOf(QUOTE, pos);
    if (quote === -1) return -1;
    let backslashes = 0;
    for (let i = quote - 1; i >= start && bytes.byteAt(i) === BACKSLASH; i--) backslashes++;
    if (backslashes % 2 === 0) return quote;
    pos = quote + 1;
  }
}

/** For `data:<mime>;base64,<payload>` between start and end, the payload's index; else -1. */
function dataUriPayloadStart(bytes: ChunkedBytes, start: number, end: number): number {
  if (bytes.toString(start, start + 5, 'latin1') !== 'data:') return -1;
  const comma = bytes.indexOf(COMMA, start);
  if (comma === -1 || comma >= end || comma - start > MAX_HEADER_BYTES) return -1;
  if (!/;base64$/i.test(bytes.toString(start, comma, 'latin1'))) return -1;
  return comma + 1;
}

/** A read-only view of a body held as the chunks it arrived in, addressed as one byte range. */
class ChunkedBytes {
  readonly length: number;
  /** `starts[i]` is the offset of `chunks[i]` in the whole. */
  private readonly starts: number[] = [];

  constructor(private readonly chunks: readonly Buffer[]) {
    let at = 0;
    for (const chunk of chunks) {
      this.starts.push(at);
      at += chunk.length;
    }
    this.length = at;
  }

  /** Chunk holding byte `pos` (binary search over chunk offsets). */
  private chunkOf(pos: number): number {
    let lo = 0;
    let hi = this.chunks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  byteAt(pos: number): number {
    const i = this.chunkOf(pos);
    return this.chunks[i]![pos - this.starts[i]!]!;
  }

  indexOf(byte: number, from: number): number {
    if (from >= this.length) return -1;
    for (let i = this.chunkOf(from); i < this.chunks.length; i++) {
      const local = Math.max(0, from - this.starts[i]!);
      const found = this.chunks[i]!.indexOf(byte, local);
      if (found !== -1) return this.starts[i]! + found;
    }
    return -1;
  }

  /** The bytes in [start, end) as slices of the chunks (no copy). */
  subarrays(start: number, end: number): Buffer[] {
    const out: Buffer[] = [];
    if (start >= end) return out;
    for (let i = this.chunkOf(start); i < this.chunks.length && this.starts[i]! < end; i++) {
      const chunk = this.chunks[i]!;
      const from = Math.max(0, start - this.starts[i]!);
      const to = Math.min(chunk.length, end - this.starts[i]!);
      if (to > from) out.push(chunk.subarray(from, to));
    }
    return out;
  }

  /** Text of [start, end); decoded as one piece so a UTF-8 character split across chunks survives. */
  toString(start: number, end: number, encoding: 'utf8' | 'latin1' = 'utf8'): string {
    const parts = this.subarrays(start, Math.min(end, this.length));
    if (parts.length === 1) return parts[0]!.toString(encoding);
    return Buffer.concat(parts).toString(encoding);
  }

  isBase64(start: number, end: number): boolean {
    for (const part of this.subarrays(start, end)) {
      for (let i = 0; i < part.length; i++) if (BASE64_BYTE[part[i]!] !== 1) return false;
    }
    return true;
  }
}
