/**
 * The provider over real HTTP against a small scripted node:http server (the Gemini stand-in of
 * this unit suite; the integration suites use the emulator).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ClientAbortError, InvalidRequestError, UpstreamError } from '../../errors.js';
import type { ChatCompletionRequest } from '../../openai/chat-request.js';
import type { ChatCompletionChunk } from '../../openai/chat-response.js';
import { InflightBudget } from '../../overload/inflight-budget.js';
import type { ProviderCall, Target } from '../provider.js';
import { createGeminiProvider, type GeminiProvider } from './gemini-provider.js';

interface Recorded {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}
type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

let server: Server;
let baseUrl: string;
let handlers: Handler[] = [];
let recorded: Recorded[] = [];
let provider: GeminiProvider;

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      recorded.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const handler = handlers.shift();
      if (!handler) {
        res.writeHead(500).end('no handler');
        return;
      }
      handler(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  provider = createGeminiProvider();
});

afterAll(async () => {
  await provider.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

afterEach(() => {
  handlers = [];
  recorded = [];
});

const KEY = 'test-provider-key';

function target(extra: Partial<Target> = {}): Target {
  return { provider: 'google', apiKey: KEY, baseUrl, strictCompliance: true, timeoutMs: 5_000, ...extra };
}

function call(request: Partial<ChatCompletionRequest> = {}, extra: Partial<ProviderCall> = {}): ProviderCall {
  return {
    request: { model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'Hi' }], ...request },
    target: target(),
    signal: new AbortController().signal,
    traceHeaders: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
    ...extra,
  };
}

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Handler =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
  };

const sse =
  (events: unknown[], options: { sep?: string; drop?: boolean } = {}): Handler =>
  (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const e of events) res.write(`data: ${JSON.stringify(e)}${options.sep ?? '\r\n\r\n'}`);
    if (options.drop) setTimeout(() => res.socket?.destroy(), 30);
    else res.end();
  };

const textAnswer = {
  candidates: [{ content: { role: 'model', parts: [{ text: 'Hello!' }] }, finishReason: 'STOP', index: 0 }],
  usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 2, totalTokenCount: 5 },
  modelVersion: 'gemini-2.5-flash',
  responseId: 'resp-1',
};

async function collect(chunks: AsyncIterable<ChatCompletionChunk>): Promise<ChatCompletionChunk[]> {
  const out: ChatCompletionChunk[] = [];
  for await (const c of chunks) out.push(c);
  return out;
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected a failure');
}

function errorView(err: unknown) {
  if (!(err instanceof UpstreamError)) return err;
  return { status: err.status, reason: err.reason, message: err.message, retryAfterSeconds: err.retryAfterSeconds };
}

describe('gemini provider: generateContent', () => {
  it('sends the key only as x-goog-api-key, trace headers, and the translated body', async () => {
    handlers.push(json(200, textAnswer));
    const result = await provider.chat(call({ temperature: 0.5 }));
    expect(result.completion.choices[0]!.message.content).toStrictEqual('Hello!');
    expect(result.completion.id).toStrictEqual('chatcmpl-resp-1');
    expect(result.outcome.usage?.inputTokens).toStrictEqual(3);
    const req = recorded[0]!;
    expect(req.method).toStrictEqual('POST');
    expect(req.url).toStrictEqual('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(req.url.includes(KEY)).toStrictEqual(false);
    expect(req.headers['x-goog-api-key']).toStrictEqual(KEY);
    expect(req.headers.traceparent).toStrictEqual('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
    expect(JSON.parse(req.body)).toStrictEqual({
      contents: [{ role: 'user', parts: [{ text: 'Hi' }] }],
      generationConfig: { temperature: 0.5 },
    });
  });

  it('uses target.model and keeps the requested model in the answer', async () => {
    handlers.push(json(200, textAnswer));
    const result = await provider.chat({ ...call(), target: target({ model: 'gemini-3-flash-preview' }) });
    expect(recorded[0]!.url).toStrictEqual('/v1beta/models/gemini-3-flash-preview:generateContent');
    expect(result.completion.model).toStrictEqual('gemini-2.5-flash');
  });

  it.each([
    {
      name: '429 with RetryInfo',
      handler: json(429, {
        error: {
          code: 429,
          message: 'You exceeded your current quota',
          status: 'RESOURCE_EXHAUSTED',
          details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '12s' }],
        },
      }),
      want: { status: 429, reason: '429', message: 'You exceeded your current quota', retryAfterSeconds: 12 },
    },
    {
      name: '503 with Retry-After header',
      handler: json(503, { error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } }, { 'retry-after': '4' }),
      want: { status: 503, reason: '503', message: 'The model is overloaded.', retryAfterSeconds: 4 },
    },
    {
      name: '400 keeps Gemini message',
      handler: json(400, { error: { code: 400, message: 'Invalid JSON payload received.', status: 'INVALID_ARGUMENT' } }),
      want: { status: 400, reason: '400', message: 'Invalid JSON payload received.', retryAfterSeconds: undefined },
    },
  ])('error status: $name', async ({ handler, want }) => {
    handlers.push(handler);
    expect(errorView(await failure(provider.chat(call())))).toStrictEqual(want);
  });

  it('timeout before headers → 504 timeout', async () => {
    handlers.push((_req, res) => {
      setTimeout(() => res.writeHead(200).end('{}'), 2_000).unref();
    });
    const err = await failure(provider.chat({ ...call(), target: target({ timeoutMs: 50 }) }));
    expect(errorView(err)).toStrictEqual({
      status: 504,
      reason: 'timeout',
      message: 'upstream did not answer within the attempt timeout (50 ms)',
      retryAfterSeconds: undefined,
    });
  });

  it('connection refused → 502 connection_error without the key in the message', async () => {
    const err = await failure(provider.chat({ ...call(), target: target({ baseUrl: 'http://127.0.0.1:1' }) }));
    expect(err).toBeInstanceOf(UpstreamError);
    expect((err as UpstreamError).status).toStrictEqual(502);
    expect((err as UpstreamError).reason).toStrictEqual('connection_error');
    expect((err as UpstreamError).message.includes(KEY)).toStrictEqual(false);
  });

  it('connection dropped before headers → 502', async () => {
    handlers.push((req) => req.socket.destroy());
    const err = await failure(provider.chat(call()));
    expect([(err as UpstreamError).status, (err as UpstreamError).reason]).toStrictEqual([502, 'connection_error']);
  });

  it('client abort → ClientAbortError', async () => {
    handlers.push(() => {});
    const ac = new AbortController();
    const pending = provider.chat({ ...call(), signal: ac.signal });
    setTimeout(() => ac.abort(), 50);
    expect(await failure(pending)).toBeInstanceOf(ClientAbortError);
  });

  it('connection dropped in the middle of the answer body → 502 connection_error', async () => {
    handlers.push((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('{"candidates":[');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const err = await failure(provider.chat(call()));
    expect(errorView(err)).toMatchObject({
      status: 502,
      reason: 'connection_error',
      message: expect.stringContaining('the upstream connection dropped before the answer was complete'),
    });
  });

  it('client abort in the middle of the answer body → ClientAbortError', async () => {
    handlers.push((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('{"candidates":[');
    });
    const ac = new AbortController();
    const pending = provider.chat({ ...call(), signal: ac.signal });
    setTimeout(() => ac.abort(), 50);
    expect(await failure(pending)).toBeInstanceOf(ClientAbortError);
  });

  it('an answer larger than SIDEGATE_MAX_UPSTREAM_ANSWER_BYTES → 502 answer_too_large, read no further', async () => {
    const small = createGeminiProvider({ maxAnswerBytes: 64 });
    try {
      handlers.push((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text: 'x'.repeat(500) }] } }] }));
      });
      const err = await failure(small.chat(call()));
      expect(errorView(err)).toMatchObject({ status: 502, reason: 'answer_too_large' });
    } finally {
      await small.close();
    }
  });
});

describe('gemini provider: a non-streamed answer in the in-flight budget', () => {
  const big = JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text: 'x'.repeat(500) }] } }] });
  /** `big` in two writes: the first within a 64-byte cap (so it is held), the second past it. */
  const inTwoPieces =
    (status: number, headers: Record<string, string> = {}): Handler =>
    (_req, res) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.write(big.slice(0, 40));
      setTimeout(() => res.end(big.slice(40)), 20);
    };

  /** The budget, and the most it held at once. */
  class PeakBudget extends InflightBudget {
    peak = 0;
    override hold(bytes: number): void {
      super.hold(bytes);
      this.peak = Math.max(this.peak, this.held);
    }
  }

  async function withBudget(maxAnswerBytes: number, run: (p: GeminiProvider, budget: PeakBudget) => Promise<void>) {
    const budget = new PeakBudget(64 * 1024 * 1024);
    const p = createGeminiProvider({ maxAnswerBytes, budget });
    try {
      await run(p, budget);
    } finally {
      await p.close();
    }
  }

  it('counts the answer (6× its bytes) while it is read and translated, and gives it all back after', async () => {
    await withBudget(1024 * 1024, async (p, budget) => {
      handlers.push(json(200, textAnswer));
      const result = await p.chat(call());
      expect(result.completion.choices[0]?.message.content).toBe('Hello!');
      expect(budget.peak).toBe(6 * Buffer.byteLength(JSON.stringify(textAnswer)));
      expect(budget.held).toBe(0);
    });
  });

  it('an answer past its cap is refused and leaves nothing held', async () => {
    await withBudget(64, async (p, budget) => {
      handlers.push(inTwoPieces(200));
      expect(errorView(await failure(p.chat(call())))).toMatchObject({ status: 502, reason: 'answer_too_large' });
      expect(budget.peak).toBe(6 * 40);
      expect(budget.held).toBe(0);
    });
  });

  it('an error answer past the cap still reports its status, and leaves nothing held', async () => {
    await withBudget(64, async (p, budget) => {
      handlers.push(inTwoPieces(503, { 'retry-after': '7' }));
      expect(errorView(await failure(p.chat(call())))).toMatchObject({ status: 503, reason: '503', retryAfterSeconds: 7 });
      expect(budget.peak).toBe(6 * 40);
      expect(budget.held).toBe(0);
    });
  });

  it('a connection dropped in the middle of the answer leaves nothing held', async () => {
    await withBudget(1024 * 1024, async (p, budget) => {
      handlers.push((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
        res.write('{"candidates":[');
        setTimeout(() => res.socket?.destroy(), 20);
      });
      expect(errorView(await failure(p.chat(call())))).toMatchObject({ status: 502, reason: 'connection_error' });
      expect(budget.peak).toBe(6 * '{"candidates":['.length);
      expect(budget.held).toBe(0);
    });
  });

  it.each([
    { name: 'is counted while it is read, and gives it all back after', cap: 1024 * 1024, peak: 6 * big.length },
    { name: 'past the cap still reports its status, and leaves nothing held', cap: 64, peak: 6 * 40 },
  ])("a stream's error answer $name", async ({ cap, peak }) => {
    await withBudget(cap, async (p, budget) => {
      handlers.push(inTwoPieces(503, { 'retry-after': '7' }));
      expect(errorView(await failure(p.chatStream(call({ stream: true }))))).toMatchObject({ status: 503, reason: '503', retryAfterSeconds: 7 });
      expect(budget.peak).toBe(peak);
      expect(budget.held).toBe(0);
    });
  });

  it('a client gone before the call is sent sends nothing', async () => {
    const ac = new AbortController();
    ac.abort();
    expect(await failure(provider.chat({ ...call(), signal: ac.signal }))).toBeInstanceOf(ClientAbortError);
    expect(recorded).toStrictEqual([]);
  });
});

describe('gemini provider: streamGenerateContent', () => {
  const chunk = (text: string, extra: Record<string, unknown> = {}) => ({
    candidates: [{ content: { role: 'model', parts: [{ text }] }, index: 0, ...extra }],
    responseId: 'r-1',
    modelVersion: 'gemini-2.5-flash',
    usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 2, totalTokenCount: 5 },
  });

  it.each(['\r\n\r\n', '\n\n'])('relays chunks (separator %j) and the usage chunk', async (sep) => {
    handlers.push(sse([chunk('Hel'), chunk('lo', { finishReason: 'STOP' })], { sep }));
    const result = await provider.chatStream(call({ stream: true, stream_options: { include_usage: true } }));
    const chunks = await collect(result.chunks);
    expect(recorded[0]!.url).toStrictEqual('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    expect(chunks.map((c) => [c.choices[0]?.delta ?? null, c.choices[0]?.finish_reason ?? null, c.usage?.total_tokens ?? null])).toStrictEqual([
      [{ role: 'assistant', content: 'Hel' }, null, null],
      [{ content: 'lo' }, null, null],
      [{}, 'stop', null],
      [null, null, 5],
    ]);
    expect(result.outcome().finishReasons).toStrictEqual(['stop']);
  });

  it('yields a chunk before the upstream stream ends', async () => {
    let release: () => void = () => {};
    handlers.push((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify(chunk('first'))}\r\n\r\n`);
      release = () => res.end(`data: ${JSON.stringify(chunk('', { finishReason: 'STOP' }))}\r\n\r\n`);
    });
    const result = await provider.chatStream(call({ stream: true }));
    const it = result.chunks[Symbol.asyncIterator]();
    const first = await it.next();
    expect(first.value?.choices[0]?.delta).toStrictEqual({ role: 'assistant', content: 'first' });
    release();
    const rest: ChatCompletionChunk[] = [];
    for (let r = await it.next(); !r.done; r = await it.next()) rest.push(r.value);
    expect(rest.map((c) => c.choices[0]?.finish_reason)).toStrictEqual(['stop']);
  });

  it('a dropped connection mid-stream throws 502, never a clean finish', async () => {
    handlers.push(sse([chunk('partial')], { drop: true }));
    const result = await provider.chatStream(call({ stream: true }));
    const err = await failure(collect(result.chunks));
    expect([(err as UpstreamError).status, (err as UpstreamError).reason]).toStrictEqual([502, 'connection_error']);
  });

  it('a stream that ends without a finish reason throws', async () => {
    handlers.push(sse([chunk('partial')]));
    const result = await provider.chatStream(call({ stream: true }));
    const err = await failure(collect(result.chunks));
    expect([(err as UpstreamError).status, (err as UpstreamError).reason]).toStrictEqual([502, 'stream_truncated']);
  });

  it('an in-stream error event throws the upstream error', async () => {
    handlers.push(sse([chunk('partial'), { error: { code: 503, message: 'overloaded', status: 'UNAVAILABLE' } }]));
    const result = await provider.chatStream(call({ stream: true }));
    const err = await failure(collect(result.chunks));
    expect([(err as UpstreamError).status, (err as UpstreamError).message]).toStrictEqual([503, 'overloaded']);
  });

  it('an error status with text/event-stream carrying JSON', async () => {
    handlers.push((_req, res) => {
      res
        .writeHead(404, { 'content-type': 'text/event-stream' })
        .end(JSON.stringify({ error: { code: 404, message: 'models/nope is not found', status: 'NOT_FOUND' } }));
    });
    const err = await failure(provider.chatStream(call({ stream: true })));
    expect([(err as UpstreamError).status, (err as UpstreamError).message]).toStrictEqual([404, 'models/nope is not found']);
  });

  it('an upstream faster than its reader waits for it, and every chunk arrives in order', async () => {
    const events = 1000;
    const text = (i: number) => `${String(i).padStart(4, '0')}${'x'.repeat(16 * 1024)}`;
    let upstream: ServerResponse | undefined;
    handlers.push((_req, res) => {
      upstream = res;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      let i = 0;
      const writeMore = () => {
        while (i < events) {
          const last = i === events - 1;
          const ok = res.write(`data: ${JSON.stringify(chunk(text(i), last ? { finishReason: 'STOP' } : {}))}\r\n\r\n`);
          i++;
          if (!ok) return void res.once('drain', writeMore);
        }
        res.end();
      };
      writeMore();
    });
    const result = await provider.chatStream(call({ stream: true }));
    const it = result.chunks[Symbol.asyncIterator]();
    expect((await it.next()).value?.choices[0]?.delta.content).toBe(text(0));
    // 16 MB, far more than the sockets' buffers: with the reader idle, upstream cannot finish.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect([upstream!.writableFinished, upstream!.writableNeedDrain]).toStrictEqual([false, true]);
    const contents: Array<string | null | undefined> = [];
    for (let r = await it.next(); !r.done; r = await it.next()) contents.push(r.value.choices[0]?.delta.content);
    expect(contents).toStrictEqual([...Array.from({ length: events - 1 }, (_, i) => text(i + 1)), undefined]);
    expect(result.outcome().finishReasons).toStrictEqual(['stop']);
  });

  it('timeout before headers → 504 timeout', async () => {
    handlers.push((_req, res) => {
      setTimeout(() => res.writeHead(200).end(), 2_000).unref();
    });
    const err = await failure(provider.chatStream({ ...call({ stream: true }), target: target({ timeoutMs: 50 }) }));
    expect(errorView(err)).toMatchObject({ status: 504, reason: 'timeout', message: 'upstream did not answer within the attempt timeout (50 ms)' });
  });

  it('connection dropped before headers → 502 connection_error', async () => {
    handlers.push((req) => req.socket.destroy());
    const err = await failure(provider.chatStream(call({ stream: true })));
    expect(errorView(err)).toMatchObject({ status: 502, reason: 'connection_error', message: expect.stringContaining('before an answer') });
  });

  /**
   * An upstream stream that sends one chunk and never ends: only the gateway dropping the
   * connection closes it. Resolves with whether its answer had finished when it closed.
   */
  function endlessStream(): Promise<boolean> {
    let closed: (finished: boolean) => void = () => {};
    const upstreamClosed = new Promise<boolean>((resolve) => (closed = resolve));
    handlers.push((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify(chunk('first'))}\r\n\r\n`);
      res.on('close', () => closed(res.writableFinished));
    });
    return upstreamClosed;
  }

  it('a client gone while the reader waits for the next piece → ClientAbortError, and the upstream call is closed', async () => {
    const upstreamClosed = endlessStream();
    const ac = new AbortController();
    const result = await provider.chatStream({ ...call({ stream: true }), signal: ac.signal });
    const it = result.chunks[Symbol.asyncIterator]();
    expect((await it.next()).done).toBe(false);
    const waiting = it.next();
    setTimeout(() => ac.abort(), 20);
    expect(await failure(waiting)).toBeInstanceOf(ClientAbortError);
    expect(await upstreamClosed).toBe(false);
  });

  it('return() on the iterator aborts the upstream call', async () => {
    const upstreamClosed = endlessStream();
    const result = await provider.chatStream(call({ stream: true }));
    const it = result.chunks[Symbol.asyncIterator]();
    expect((await it.next()).done).toBe(false);
    await it.return?.();
    expect(await upstreamClosed).toBe(false);
  });
});

describe('gemini provider: media resolution', () => {
  const fileUrl = () => `${baseUrl}/v1beta/files/vid-1`;
  const withImage = (url: string, mime_type?: string): Partial<ChatCompletionRequest> => ({
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Describe' },
          { type: 'image_url', image_url: { url, ...(mime_type ? { mime_type } : {}) } },
        ],
      },
    ],
  });

  it('reads a file MIME type from the files API once, then from the cache', async () => {
    handlers.push(json(200, { name: 'files/vid-1', mimeType: 'video/mp4', uri: fileUrl(), state: 'ACTIVE' }));
    handlers.push(json(200, textAnswer));
    handlers.push(json(200, textAnswer));
    const p = createGeminiProvider();
    try {
      await p.chat(call(withImage(fileUrl())));
      await p.chat(call(withImage(fileUrl())));
    } finally {
      await p.close();
    }
    expect(recorded.map((r) => [r.method, r.url, r.headers['x-goog-api-key']])).toStrictEqual([
      ['GET', '/v1beta/files/vid-1', KEY],
      ['POST', '/v1beta/models/gemini-2.5-flash:generateContent', KEY],
      ['POST', '/v1beta/models/gemini-2.5-flash:generateContent', KEY],
    ]);
    expect(JSON.parse(recorded[2]!.body).contents).toStrictEqual([
      { role: 'user', parts: [{ text: 'Describe' }, { fileData: { mimeType: 'video/mp4', fileUri: fileUrl() } }] },
    ]);
  });

  it('an explicit mime_type needs no lookup', async () => {
    handlers.push(json(200, textAnswer));
    await provider.chat(call(withImage(fileUrl(), 'application/pdf')));
    expect(recorded.map((r) => r.url)).toStrictEqual(['/v1beta/models/gemini-2.5-flash:generateContent']);
  });

  it("the files API's error reaches the caller", async () => {
    handlers.push(json(403, { error: { code: 403, message: 'You do not have permission to access the File', status: 'PERMISSION_DENIED' } }));
    const err = await failure(provider.chat(call(withImage(`${baseUrl}/v1beta/files/other`))));
    expect([(err as UpstreamError).status, (err as UpstreamError).message]).toStrictEqual([
      403,
      'You do not have permission to access the File',
    ]);
  });

  it('other URLs: 400 without a fetcher, inlined through the injected fetchMedia', async () => {
    const url = 'https://example.com/cat.png';
    const err = await failure(provider.chat(call(withImage(url))));
    expect(err).toBeInstanceOf(InvalidRequestError);
    expect((err as InvalidRequestError).param).toStrictEqual('messages[0].content[1]');

    const fetched: string[] = [];
    const p = createGeminiProvider({
      fetchMedia: async (u) => {
        fetched.push(u);
        return { mimeType: 'image/png', data: 'iVBO' };
      },
    });
    handlers.push(json(200, textAnswer));
    try {
      await p.chat(call(withImage(url)));
    } finally {
      await p.close();
    }
    expect(fetched).toStrictEqual([url]);
    expect(JSON.parse(recorded[0]!.body).contents[0].parts[1]).toStrictEqual({ inlineData: { mimeType: 'image/png', data: 'iVBO' } });
  });
});
