// Small helpers for the emulator's own tests (real HTTP through fetch). Not used by production code.

export const KEY = 'test-key-not-secret';

export function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-goog-api-key': KEY, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

export function userText(text: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { contents: [{ role: 'user', parts: [{ text }] }], ...extra };
}

/** Splits an SSE body into parsed `data:` payloads, checking the `\r\n\r\n` framing. */
export function parseSse(text: string): unknown[] {
  if (!text.endsWith('\r\n\r\n')) throw new Error(`SSE body does not end with CRLFCRLF: ${JSON.stringify(text.slice(-20))}`);
  return text
    .split('\r\n\r\n')
    .filter((e) => e !== '')
    .map((e) => {
      if (!e.startsWith('data: ')) throw new Error(`not a data event: ${e}`);
      return JSON.parse(e.slice(6)) as unknown;
    });
}
