// The scripting API: replies queued by tests, consumed FIFO by the next generate/stream/countTokens
// call they match, plus the record of every request received. State belongs to one emulator.

/** One request as the emulator received it. */
export interface RecordedRequest {
  method: string;
  /** Path including the query string, e.g. `/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`. */
  path: string;
  /** Lower-case header names; repeated headers joined with `, `. */
  headers: Record<string, string>;
  /** Parsed JSON when the body was JSON, else the raw text; `undefined` for empty and binary (upload) bodies. */
  body: unknown;
  /** Size of the body in bytes. */
  bodyBytes: number;
  /** Model id of a `/v1beta/models/{model}:…` call. */
  model?: string;
  /** RPC of a model call: `generateContent`, `streamGenerateContent`, `countTokens`, … */
  rpc?: string;
  /** When the request arrived (`Date.now()`), so a fault run can see when a target was called. */
  receivedAtMs: number;
}

/** A JSON answer (success or error) with the given status. On a stream call a 200 body is sent as one event. */
export interface JsonReply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  delayMs?: number;
}

/** A streamed answer: SSE events (`alt=sse`) or JSON-array elements, one per chunk. */
export interface StreamReply {
  chunks: Array<{ data: unknown; delayMs?: number }>;
  /** `clean` (default) ends the stream; `drop` destroys the socket; `{error}` writes an in-stream error event, then ends. */
  end?: 'clean' | 'drop' | { error: unknown };
  headers?: Record<string, string>;
  delayMs?: number;
}

/** Destroy the socket before any response. */
export interface DropReply {
  drop: true;
  delayMs?: number;
}

/**
 * Raw bytes, for faults no real Gemini answer has: garbage, an HTML error page, a 50 MB answer or
 * one 50 MB event. `raw` pieces are written in order with backpressure; `{repeat, times}` writes
 * `repeat` `times` times without building the whole text. Default status 200, no content type.
 */
export interface RawReply {
  raw: Array<string | { repeat: string; times: number }>;
  status?: number;
  headers?: Record<string, string>;
  delayMs?: number;
}

/** The default answer, after a delay. */
export interface DelayReply {
  delayMs: number;
}

/** A reply a test queues; `match` restricts which request consumes it (in-process use only). */
export type ScriptedReply = (JsonReply | StreamReply | DropReply | RawReply | DelayReply) & {
  match?: (req: RecordedRequest) => boolean;
};

export function isJsonReply(r: ScriptedReply): r is JsonReply {
  return 'status' in r && 'body' in r;
}
export function isStreamReply(r: ScriptedReply): r is StreamReply {
  return 'chunks' in r && Array.isArray(r.chunks);
}
export function isRawReply(r: ScriptedReply): r is RawReply {
  return 'raw' in r && Array.isArray(r.raw);
}
export function isDropReply(r: ScriptedReply): r is DropReply {
  return 'drop' in r && r.drop === true;
}

/** FIFO of scripted replies; `take` removes the first one whose `match` accepts the request. */
export class ReplyQueue {
  private items: ScriptedReply[] = [];

  push(...replies: ScriptedReply[]): void {
    this.items.push(...replies);
  }

  take(req: RecordedRequest): ScriptedReply | undefined {
    for (let i = 0; i < this.items.length; i++) {
      const r = this.items[i]!;
      if (!r.match || r.match(req)) {
        this.items.splice(i, 1);
        return r;
      }
    }
    return undefined;
  }

  get size(): number {
    return this.items.length;
  }

  clear(): void {
    this.items = [];
  }
}

/**
 * Checks a reply that arrived over the control API (JSON, so no `match`). Returns an error text
 * or `null` when the shape is one of the four reply kinds.
 */
export function checkReplyShape(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'each reply must be an object';
  const r = value as Record<string, unknown>;
  if (r.delayMs !== undefined && (typeof r.delayMs !== 'number' || r.delayMs < 0)) return 'delayMs must be a non-negative number';
  if ('chunks' in r) {
    if (!Array.isArray(r.chunks)) return 'chunks must be an array';
    for (const c of r.chunks) {
      if (typeof c !== 'object' || c === null || !('data' in c)) return 'each chunk must be an object with data';
    }
    const end = r.end;
    if (end !== undefined && end !== 'clean' && end !== 'drop' && !(typeof end === 'object' && end !== null && 'error' in end)) {
      return "end must be 'clean', 'drop' or {error}";
    }
    return null;
  }
  if ('raw' in r) {
    if (!Array.isArray(r.raw)) return 'raw must be an array of strings or {repeat, times}';
    for (const piece of r.raw) {
      if (typeof piece === 'string') continue;
      const p = piece as Record<string, unknown>;
      if (typeof p !== 'object' || p === null || typeof p.repeat !== 'string' || typeof p.times !== 'number' || p.times < 0) {
        return 'each raw piece must be a string or {repeat: string, times: number}';
      }
    }
    if (r.status !== undefined && (typeof r.status !== 'number' || r.status < 100 || r.status > 599)) return 'status must be an HTTP status number';
    return null;
  }
  if ('status' in r) {
    if (typeof r.status !== 'number' || r.status < 100 || r.status > 599) return 'status must be an HTTP status number';
    if (!('body' in r)) return 'a status reply needs a body';
    return null;
  }
  if ('drop' in r) return r.drop === true ? null : 'drop must be true';
  if ('delayMs' in r) return null;
  return 'a reply needs status+body, chunks, raw, drop or delayMs';
}
