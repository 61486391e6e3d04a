/**
 * Incremental parser of `text/event-stream` bodies (WHATWG HTML §9.2.6, the subset Gemini and
 * OpenAI-compatible upstreams use: `data:` lines; gemini-wire §4). Pure and stateful per stream.
 *
 * Events end at a blank line; lines end with `\r\n`, `\n` or `\r`, so both Google's `\r\n\r\n`
 * and `\n\n` work, and a chunk may split anywhere (even between `\r` and `\n`, or inside a UTF-8
 * character: the parser works on bytes, and CR/LF bytes never occur inside a multi-byte UTF-8
 * sequence, so each line is decoded whole). Comment lines and fields other than `data` are ignored.
 *
 * Linear in the bytes received: each chunk is scanned once for line ends, and an unfinished line
 * is kept as a list of slices (joined once, when its line ends) instead of a string that grows and
 * is rescanned on every chunk. One event is capped at `maxEventBytes` (counting every line since
 * the last blank line): beyond it the parser throws a 502 `event_too_large` as soon as the cap is
 * crossed, without buffering the rest.
 */
import { UpstreamError } from '../errors.js';

const LF = 0x0a;
const CR = 0x0d;

/** Default cap of one upstream event (`SIDEGATE_MAX_UPSTREAM_EVENT_BYTES`): 32 MiB. */
export const DEFAULT_MAX_EVENT_BYTES = 32 * 1024 * 1024;

export interface SseParserOptions {
  /** Largest event accepted, in bytes; default {@link DEFAULT_MAX_EVENT_BYTES}. */
  maxEventBytes?: number;
}

export class SseParser {
  private readonly maxEventBytes: number;
  /** Slices of the line not yet ended (no copy until the line ends). */
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  /** `data` values of the event being read. */
  private data: string[] = [];
  /** Bytes of the event's ended lines (with their line ends). */
  private eventBytes = 0;
  /** A `\r` ended the last chunk: a `\n` starting the next one belongs to it. */
  private pendingCr = false;
  /** Bytes examined while looking for line ends, for tests that prove the parser linear. */
  bytesScanned = 0;

  constructor(options: SseParserOptions = {}) {
    this.maxEventBytes = options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES;
  }

  /** Feeds the next bytes of the body; returns the `data` payloads of the events it completed. */
  push(chunk: Uint8Array): string[] {
    const events: string[] = [];
    let start = 0;
    if (this.pendingCr && chunk.length > 0) {
      if (chunk[0] === LF) start = 1;
      this.pendingCr = false;
    }
    // Next LF and CR at or after the cursor, each found by one native scan that never goes back:
    // -2 means "not searched yet", -1 "none in this chunk".
    let nextLf = -2;
    let nextCr = -2;
    let pos = start;
    while (pos < chunk.length) {
      if (nextLf !== -1 && nextLf < pos) nextLf = this.scan(chunk, LF, pos);
      if (nextCr !== -1 && nextCr < pos) nextCr = this.scan(chunk, CR, pos);
      const end = nextLf === -1 ? nextCr : nextCr === -1 ? nextLf : Math.min(nextLf, nextCr);
      if (end === -1) break;
      // CRLF is one line end; a CR that ends the chunk may be the first half of one.
      const crLast = chunk[end] === CR && end + 1 === chunk.length;
      const next = chunk[end] === CR && chunk[end + 1] === LF ? end + 2 : end + 1;
      this.eventBytes += next - end;
      this.addPending(chunk.subarray(pos, end));
      this.endLine(events);
      if (crLast) this.pendingCr = true;
      pos = next;
    }
    if (pos < chunk.length) this.addPending(chunk.subarray(pos));
    return events;
  }

  /** End of input: an event still open (no final blank line) is dispatched. */
  end(): string[] {
    const events: string[] = [];
    if (this.pendingBytes > 0) this.endLine(events);
    this.pending = [];
    this.pendingBytes = 0;
    this.line('', events);
    return events;
  }

  private scan(chunk: Uint8Array, byte: number, from: number): number {
    const found = chunk.indexOf(byte, from);
    this.bytesScanned += (found === -1 ? chunk.length : found + 1) - from;
    return found;
  }

  private addPending(slice: Uint8Array): void {
    if (slice.length === 0) return;
    this.pendingBytes += slice.length;
    if (this.eventBytes + this.pendingBytes > this.maxEventBytes) {
      this.pending = [];
      this.pendingBytes = 0;
      throw new UpstreamError(
        `upstream sent a stream event larger than ${this.maxEventBytes} bytes (SIDEGATE_MAX_UPSTREAM_EVENT_BYTES)`,
        { status: 502, reason: 'event_too_large', code: 'event_too_large', retryable: false },
      );
    }
    this.pending.push(slice);
  }

  private endLine(events: string[]): void {
    const pieces = this.pending;
    const line =
      pieces.length === 0 ? '' : pieces.length === 1 ? decode(pieces[0]!) : decode(Buffer.concat(pieces, this.pendingBytes));
    this.eventBytes += this.pendingBytes;
    this.pending = [];
    this.pendingBytes = 0;
    this.line(line, events);
  }

  private line(line: string, events: string[]): void {
    if (line === '') {
      if (this.data.length > 0) events.push(this.data.join('\n'));
      this.data = [];
      this.eventBytes = 0;
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    if (field !== 'data') return;
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    this.data.push(value);
  }
}

function decode(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}
