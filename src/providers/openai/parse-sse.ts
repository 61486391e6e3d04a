/**
 * Incremental Server-Sent Events parser (WHATWG HTML §9.2.6, the parts OpenAI streams use):
 * feed decoded text as it arrives, get back the `data` of each complete event. Comments
 * (`: ping`), `event:`, `id:` and `retry:` lines are ignored; multi-line data is joined with "\n".
 */
export class SseDataParser {
  private buffer = '';
  private data: string[] = [];

  push(text: string): string[] {
    this.buffer += text;
    const out: string[] = [];
    let start = 0;
    for (;;) {
      const nl = this.buffer.indexOf('\n', start);
      if (nl === -1) break;
      let line = this.buffer.slice(start, nl);
      if (line.endsWith('\r')) line = line.slice(0, -1);
      start = nl + 1;
      this.line(line, out);
    }
    this.buffer = this.buffer.slice(start);
    return out;
  }

  /** Flushes an event the stream ended without a blank line after. */
  end(): string[] {
    const out: string[] = [];
    if (this.buffer !== '') this.line(this.buffer.replace(/\r$/, ''), out);
    this.buffer = '';
    this.line('', out);
    return out;
  }

  private line(line: string, out: string[]): void {
    if (line === '') {
      if (this.data.length > 0) out.push(this.data.join('\n'));
      this.data = [];
      return;
    }
    if (line.startsWith('data:')) this.data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
  }
}
