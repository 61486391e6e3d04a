import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ClientAbortError, UpstreamError } from '../../errors.js';
import type { ChatCompletionRequest } from '../../openai/chat-request.js';
import type { ChatCompletionChunk } from '../../openai/chat-response.js';
import type { ProviderCall, Target } from '../provider.js';
import { chatCompletionsUrl, createOpenAIProvider } from './openai-provider.js';

const KEY = 'test-openai-key-not-real';

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;
let handler: Handler;
let server: Server;
let baseUrl: string;
const seen: Array<{ url: string; headers: IncomingMessage['headers']; body: string }> = [];
/** Resolves when the server notices the client side of the current request closed. */
let upstreamClosed: Promise<void>;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ url: req.url ?? '', headers: req.headers, body });
      handler(req, body, res);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const provider = createOpenAIProvider();
afterAll(() => provider.close());
afterEach(() => {
  seen.length = 0;
});

function trackClose(res: ServerResponse): void {
  upstreamClosed = new Promise((resolve) => res.on('close', () => resolve()));
}

const request: ChatCompletionRequest = {
  model: 'gpt-4o-mini',
  messages: [{ role: 'user', content: 'hi' }],
};

function call(overrides: Partial<Target> = {}, req: ChatCompletionRequest = request, signal = new AbortController().signal): ProviderCall {
  return {
    request: req,
    target: { provider: 'openai', apiKey: KEY, baseUrl, strictCompliance: true, timeoutMs: 5_000, ...overrides },
    signal,
    traceHeaders: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
  };
}

const completion = {
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1,
  model: 'gpt-4o-mini-2024-07-18',
  choices: [{ index: 0, message: { role: 'assistant', content: 'hello', refusal: null }, finish_reason: 'stop', logprobs: null }],
  usage: {
    prompt_tokens: 9,
    completion_tokens: 3,
    total_tokens: 12,
    prompt_tokens_details: { cached_tokens: 2 },
    completion_tokens_details: { reasoning_tokens: 1 },
  },
};

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function chunk(content: string | null, finish: string | null = null, extra: object = {}) {
  return {
    id: 'chatcmpl-2',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'gpt-4o-mini-2024-07-18',
    choices: [{ index: 0, delta: content === null ? {} : { content }, finish_reason: finish, logprobs: null }],
    usage: null,
    ...extra,
  };
}
const usageChunk = { ...chunk(null), choices: [], usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } };

function sse(res: ServerResponse, events: unknown[], end = true): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const e of events) res.write(`data: ${typeof e === 'string' ? e : JSON.stringify(e)}\n\n`);
  if (end) res.end();
}

async function collect(chunks: AsyncIterable<ChatCompletionChunk>): Promise<ChatCompletionChunk[]> {
  const out: ChatCompletionChunk[] = [];
  for await (const c of chunks) out.push(c);
  return out;
}

async function failure(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => {
      throw new Error('expected a failure');
    },
    (e: unknown) => e,
  );
}

describe('createOpenAIProvider', () => {
  it('names itself for telemetry', () => {
    expect([provider.name, provider.telemetryName, provider.operationName]).toStrictEqual(['openai', 'openai', 'chat']);
  });

  it('passes a JSON chat through with the key, trace headers and the target model', async () => {
    handler = (_req, _body, res) => json(res, 200, completion);
    const result = await provider.chat(call({ model: 'gpt-4o' }, { ...request, temperature: 0.3, stream: false }));
    expect(result).toStrictEqual({
      status: 200,
      completion,
      outcome: {
        responseId: 'chatcmpl-1',
        responseModel: 'gpt-4o-mini-2024-07-18',
        finishReasons: ['stop'],
        usage: { inputTokens: 9, outputTokens: 3, reasoningTokens: 1, cachedInputTokens: 2 },
        warnings: [],
      },
    });
    expect(seen[0]!.url).toBe('/v1/chat/completions');
    expect(seen[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(seen[0]!.headers.traceparent).toBe('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
    expect(JSON.parse(seen[0]!.body)).toStrictEqual({ model: 'gpt-4o', messages: request.messages, temperature: 0.3 });
  });

  it('accepts a base URL that already ends in /v1', async () => {
    handler = (_req, _body, res) => json(res, 200, completion);
    await provider.chat(call({ baseUrl: `${baseUrl}/v1/` }));
    expect(seen[0]!.url).toBe('/v1/chat/completions');
  });

  it('relays a stream, asks for usage and hides it from a client that did not', async () => {
    handler = (_req, _body, res) => sse(res, [chunk('Hel'), chunk('lo'), chunk(null, 'stop'), usageChunk, '[DONE]']);
    const result = await provider.chatStream(call({}, { ...request, stream: true }));
    const chunks = await collect(result.chunks);
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? null)).toStrictEqual(['Hel', 'lo', null]);
    expect(chunks.every((c) => !('usage' in c))).toBe(true);
    expect(result.outcome()).toStrictEqual({
      responseId: 'chatcmpl-2',
      responseModel: 'gpt-4o-mini-2024-07-18',
      finishReasons: ['stop'],
      usage: { inputTokens: 5, outputTokens: 2, reasoningTokens: 0, cachedInputTokens: 0 },
      warnings: [],
    });
    const sent = JSON.parse(seen[0]!.body);
    expect(sent.stream).toBe(true);
    expect(sent.stream_options).toStrictEqual({ include_usage: true });
    expect(seen[0]!.headers.accept).toBe('text/event-stream');
  });

  it('keeps usage for a client that asked for it', async () => {
    handler = (_req, _body, res) => sse(res, [chunk('Hi'), chunk(null, 'stop'), usageChunk, '[DONE]']);
    const result = await provider.chatStream(call({}, { ...request, stream: true, stream_options: { include_usage: true } }));
    const chunks = await collect(result.chunks);
    expect(chunks).toHaveLength(3);
    expect(chunks[2]!.usage).toStrictEqual(usageChunk.usage);
  });

  it('passes an upstream error through with its status, message and Retry-After', async () => {
    handler = (_req, _body, res) =>
      json(res, 429, { error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded', param: null } }, { 'retry-after': '7' });
    const err = await failure(provider.chat(call()));
    expect(err).toBeInstanceOf(UpstreamError);
    expect(err).toMatchObject({ status: 429, message: 'Rate limit reached', code: 'rate_limit_exceeded', retryAfterSeconds: 7, retryable: true });
  });

  it('fails a stream before its first chunk with the upstream status', async () => {
    handler = (_req, _body, res) => json(res, 503, { error: { message: 'overloaded' } });
    expect(await failure(provider.chatStream(call({}, { ...request, stream: true })))).toMatchObject({ status: 503, message: 'overloaded' });
  });

  it('scrubs keys the upstream echoes', async () => {
    handler = (_req, _body, res) =>
      json(res, 401, { error: { message: `Incorrect API key provided: ${KEY}. Also sk-abc***wxyz.`, code: 'invalid_api_key' } });
    const err = (await failure(provider.chat(call()))) as UpstreamError;
    expect(err.status).toBe(401);
    expect(err.message).toBe('Incorrect API key provided: [redacted]. Also [redacted].');
  });

  it('times out when headers do not arrive (504 timeout)', async () => {
    handler = (_req, _body, res) => trackClose(res); // never answers
    const err = await failure(provider.chat(call({ timeoutMs: 50 })));
    expect(err).toBeInstanceOf(UpstreamError);
    expect(err).toMatchObject({ status: 504, reason: 'timeout', retryable: true });
    await upstreamClosed;
  });

  it('never cuts a stream whose headers arrived in time', async () => {
    // The timeout is generous so a busy machine still gets the headers in time; the rest of the
    // stream comes well after it would have fired.
    handler = (_req, _body, res) => {
      sse(res, [chunk('slow')], false);
      setTimeout(() => {
        res.write(`data: ${JSON.stringify(chunk(null, 'stop'))}\n\ndata: [DONE]\n\n`);
        res.end();
      }, 2_500);
    };
    const result = await provider.chatStream(call({ timeoutMs: 2_000 }, { ...request, stream: true }));
    expect((await collect(result.chunks)).length).toBe(2);
  });

  it('maps a refused connection to 502 connection_error', async () => {
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const err = await failure(provider.chat(call({ baseUrl: `http://127.0.0.1:${port}` })));
    expect(err).toMatchObject({ status: 502, reason: 'connection_error', retryable: true });
  });

  it('maps a connection dropped mid-stream to an error from the iterator', async () => {
    handler = (_req, _body, res) => {
      sse(res, [chunk('partial')], false);
      setTimeout(() => res.socket?.destroy(), 20);
    };
    const result = await provider.chatStream(call({}, { ...request, stream: true }));
    const err = await failure(collect(result.chunks));
    expect(err).toMatchObject({ status: 502, reason: 'connection_error' });
  });

  it('treats a stream that ends without [DONE] or a finish reason as truncated', async () => {
    handler = (_req, _body, res) => sse(res, [chunk('partial')]);
    const result = await provider.chatStream(call({}, { ...request, stream: true }));
    expect(await failure(collect(result.chunks))).toMatchObject({ status: 502, message: 'the upstream stream ended before it was complete' });
  });

  it('turns an error event mid-stream into an UpstreamError', async () => {
    handler = (_req, _body, res) => sse(res, [chunk('a'), { error: { message: 'server overloaded', code: 'overloaded' } }]);
    const result = await provider.chatStream(call({}, { ...request, stream: true }));
    expect(await failure(collect(result.chunks))).toMatchObject({ status: 502, reason: 'stream_error', message: 'server overloaded' });
  });

  it('rejects a 200 that is not a chat completion', async () => {
    handler = (_req, _body, res) => json(res, 200, { hello: 'world' });
    expect(await failure(provider.chat(call()))).toMatchObject({ status: 502, reason: 'invalid_response' });
  });

  it('aborts upstream when the client goes away before headers', async () => {
    handler = (_req, _body, res) => trackClose(res);
    const controller = new AbortController();
    const pending = provider.chat(call({}, request, controller.signal));
    while (seen.length === 0) await new Promise((r) => setTimeout(r, 5));
    controller.abort();
    expect(await failure(pending)).toBeInstanceOf(ClientAbortError);
    await upstreamClosed;
  });

  it('aborts upstream when the consumer stops iterating a stream', async () => {
    handler = (_req, _body, res) => {
      trackClose(res);
      sse(res, [chunk('one'), chunk('two')], false);
    };
    const result = await provider.chatStream(call({}, { ...request, stream: true }));
    for await (const c of result.chunks) {
      expect(c.choices[0]?.delta.content).toBe('one');
      break;
    }
    await upstreamClosed;
  });

  it('streams on an injected dispatcher', async () => {
    const { Agent } = await import('../../http-client.js');
    const agent = new Agent();
    const calls: string[] = [];
    const dispatcher = {
      dispatch: (opts: { origin?: unknown; path?: unknown }, h: never) => (calls.push(`${String(opts.origin)}${String(opts.path)}`), agent.dispatch(opts as never, h)),
    };
    const wrapped = createOpenAIProvider({ dispatcher: dispatcher as never });
    handler = (_req, _body, res) => sse(res, [chunk('one'), chunk(null, 'stop'), '[DONE]']);
    const result = await wrapped.chatStream(call({}, { ...request, stream: true }));
    expect((await collect(result.chunks)).map((c) => c.choices[0]?.delta.content)).toStrictEqual(['one', undefined]);
    await agent.close();
    expect(calls).toStrictEqual([`${baseUrl}/v1/chat/completions`]);
  });

  it('sends a non-streamed call on an injected dispatcher', async () => {
    const { Agent } = await import('../../http-client.js');
    const agent = new Agent();
    const origins: string[] = [];
    const dispatcher = { dispatch: (opts: { origin?: unknown }, h: never) => (origins.push(String(opts.origin)), agent.dispatch(opts as never, h)) };
    const wrapped = createOpenAIProvider({ dispatcher: dispatcher as never });
    handler = (_req, _body, res) => json(res, 200, completion);
    await wrapped.chat(call());
    await agent.close();
    expect(origins).toStrictEqual([baseUrl]);
  });
});

describe('chatCompletionsUrl', () => {
  it.each([
    { base: 'https://api.openai.com', want: 'https://api.openai.com/v1/chat/completions' },
    { base: 'https://api.openai.com/', want: 'https://api.openai.com/v1/chat/completions' },
    { base: 'http://localhost:11434/v1', want: 'http://localhost:11434/v1/chat/completions' },
    { base: 'http://proxy/openai', want: 'http://proxy/openai/v1/chat/completions' },
  ])('$base', ({ base, want }) => expect(chatCompletionsUrl(base)).toBe(want));
});
