/**
 * Incremental parser of `text/event-stream` bodies (WHATWG HTML §9.2.6, the subset Gemini and
 * OpenAI-compatible upstreams use: `data:` lines; gemini-wire §4). Pure and stateful per stream.
 *
 * Events end at a blank line; lines end with `\r\n`, `\n` or `\r`, so both Google's `\r\n\r\n`
 * and `\n\n` work, and a chunk may split anywhere (even between `\r` and `\n`). Comment lines and
 * fields other than `data` are ignored.
 */
export class SseParser {
  private buffer = '';
  private data: string[] = [];
  /** A `\r` ended the last chunk: a `\n` starting the next one belongs to it. */
  private pendingCr = false;

  /** Feeds decoded text; returns the `data` payloads of the events it completed. */
  push(text: string): string[] {
    let input = text;
    if (this.pendingCr && input.startsWith('\n')) input = input.slice(1);
    this.pendingCr = false;
    this.buffer += input;
    const events: string[] = [];
    let start = 0;
    for (let i = 0; i < this.buffer.length; i++) {
      const ch = this.buffer.charCodeAt(i);
      if (ch !== 10 && ch !== 13) continue;
      this.line(this.buffer.slice(start, i), events);
      if (ch === 13) {
        if (i + 1 < this.buffer.length) {
          if (this.buffer.charCodeAt(i + 1) === 10) i++;
        } else {
          this.pendingCr = true;
        }
      }
      start = i + 1;
    }
    this.buffer = this.buffer.slice(start);
    return events;
  }

  /** End of input: an event still open (no final blank line) is dispatched. */
  end(): string[] {
    const events: string[] = [];
    if (this.buffer !== '') this.line(this.buffer, events);
    this.buffer = '';
    this.line('', events);
    return events;
  }

  private line(line: string, events: string[]): void {
    if (line === '') {
      if (this.data.length > 0) events.push(this.data.join('\n'));
      this.data = [];
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
