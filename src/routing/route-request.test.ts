import { describe, expect, it } from 'vitest';
import { createRoutingConfigStore } from '../config/routing-config.js';
import { ClientAbortError, InvalidRequestError, UpstreamError } from '../errors.js';
import type { ChatCompletionRequest } from '../openai/chat-request.js';
import type { ChatCompletion, ChatCompletionChunk } from '../openai/chat-response.js';
import type { ChatResult, Provider, ProviderCall, ProviderName, StreamResult } from '../providers/provider.js';
import type { AttemptEnd, AttemptStart, RequestSpan } from '../telemetry/telemetry.js';
import { resolvePlan, type PlanEnvironment } from './resolve-plan.js';
import { routeChat, routeChatStream, type RouteContext, type RouteStats } from './route-request.js';

// Obviously fake credentials.
const KEY = 'test-key-0000';

type Step = 'ok' | number | 'timeout' | 'drop' | { status: number; retryAfter: number };

function errorOf(step: Exclude<Step, 'ok'>): Error {
  if (step === 'timeout') return new UpstreamError('upstream did not answer', { status: 504, reason: 'timeout' });
  if (step === 'drop') return new UpstreamError('connection dropped', { status: 502, reason: 'connection_error' });
  if (typeof step === 'number') return new UpstreamError(`status ${step}`, { status: step });
  return new UpstreamError('slow down', { status: step.status, retryAfterSeconds: step.retryAfter });
}

const completion = (model: string): ChatCompletion =>
  ({
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: 'hi', refusal: null }, finish_reason: 'stop', logprobs: null }],
  }) as unknown as ChatCompletion;

const chunk = (text: string): ChatCompletionChunk =>
  ({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: text }, finish_reason: null }] }) as unknown as ChatCompletionChunk;

/** A provider that plays `steps` in order; streams yield `chunks` then fail when `failAfter` is set. */
function fakeProvider(name: ProviderName, steps: Step[], stream: { chunks?: string[]; failAt?: number } = {}) {
  const calls: ProviderCall[] = [];
  const next = (call: ProviderCall): void => {
    calls.push(call);
    const step = steps.shift() ?? 'ok';
    if (step !== 'ok') throw errorOf(step);
  };
  const provider: Provider = {
    name,
    telemetryName: name === 'google' ? 'gcp.gemini' : 'openai',
    operationName: name === 'google' ? 'generate_content' : 'chat',
    async chat(call): Promise<ChatResult> {
      next(call);
      return { status: 200, completion: completion(call.target.model ?? call.request.model), outcome: { finishReasons: ['stop'], warnings: [] } };
    },
    async chatStream(call): Promise<StreamResult> {
      next(call);
      const texts = stream.chunks ?? ['a', 'b'];
      async function* gen() {
        for (let i = 0; i < texts.length; i++) {
          if (stream.failAt === i) throw errorOf('drop');
          yield chunk(texts[i]!);
        }
        if (stream.failAt === texts.length) throw errorOf('drop');
      }
      return { status: 200, chunks: gen(), outcome: () => ({ finishReasons: ['stop'], warnings: [] }) };
    },
  };
  return { provider, calls };
}

interface Recorded {
  start: AttemptStart;
  ends: AttemptEnd[];
  firstChunk: number;
}

function recordingSpan() {
  const attempts: Recorded[] = [];
  const span: RequestSpan = {
    sampled: () => undefined,
    startAttempt(start) {
      const rec: Recorded = { start, ends: [], firstChunk: 0 };
      attempts.push(rec);
      return {
        traceHeaders: () => ({ traceparent: `00-${'1'.repeat(32)}-${String(attempts.length).padStart(16, '0')}-01` }),
        firstChunk: () => void rec.firstChunk++,
        end: (r) => void rec.ends.push(r),
      };
    },
    end() {},
  };
  return { span, attempts };
}

const env = (): PlanEnvironment => ({
  configs: createRoutingConfigStore({}),
  virtualKeys: { get: () => undefined },
  baseUrls: { google: 'https://generativelanguage.googleapis.com', openai: 'https://api.openai.com' },
  customHosts: ['127.0.0.1'],
  timeoutMs: 1000,
});

const request: ChatCompletionRequest = { model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hi' }] };

async function setup(options: {
  config?: unknown;
  google?: Step[];
  openai?: Step[];
  stream?: { chunks?: string[]; failAt?: number };
  metadata?: Record<string, string>;
  random?: () => number;
  request?: ChatCompletionRequest;
  signal?: AbortSignal;
}) {
  const google = fakeProvider('google', options.google ?? [], options.stream);
  const openai = fakeProvider('openai', options.openai ?? [], options.stream);
  const planEnv = env();
  const credentials = { provider: 'google' as const, apiKey: KEY, strictCompliance: true, timeoutMs: planEnv.timeoutMs };
  const config = options.config === undefined ? undefined : await planEnv.configs.resolve(JSON.stringify(options.config));
  const plan = resolvePlan({ config, credentials }, planEnv);
  const { span, attempts } = recordingSpan();
  const sleeps: number[] = [];
  const ctx: RouteContext = {
    request: options.request ?? request,
    plan,
    span,
    metadata: options.metadata ?? {},
    providers: { google: google.provider, openai: openai.provider },
    signal: options.signal ?? new AbortController().signal,
    random: options.random ?? (() => 0.5),
    sleep: async (ms, signal) => {
      sleeps.push(ms);
      if (signal?.aborted) throw new ClientAbortError();
    },
  };
  const stats: RouteStats = { attempts: 0 };
  return { ctx, stats, attempts, sleeps, google, openai };
}

const summary = (attempts: Recorded[]) =>
  attempts.map((a) => ({
    provider: a.start.providerName,
    number: a.start.attemptNumber,
    target: a.start.targetIndex,
    resend: a.start.resendCount,
    ok: a.ends.length === 1 && a.ends[0]!.error === undefined,
  }));

describe('routeChat', () => {
  it('without a config: one attempt on the header target, path default', async () => {
    const s = await setup({});
    const result = await routeChat(s.ctx, s.stats);
    expect(result.completion.model).toBe('gemini-2.5-flash');
    expect(s.stats).toStrictEqual({ attempts: 1, finalTarget: 'default' });
    expect(summary(s.attempts)).toStrictEqual([{ provider: 'gcp.gemini', number: 1, target: 'default', resend: 0, ok: true }]);
    expect(s.google.calls[0]!.traceHeaders.traceparent).toMatch(/^00-1{32}-0{15}1-01$/);
    expect(s.attempts[0]!.ends[0]!.output).toStrictEqual([{ content: 'hi', finishReason: 'stop' }]);
  });

  it('without a config: a 503 is not retried', async () => {
    const s = await setup({ google: [503] });
    await expect(routeChat(s.ctx, s.stats)).rejects.toMatchObject({ status: 503 });
    expect(s.stats.attempts).toBe(1);
  });

  it('retries the same target with backoff, each try its own span with resend_count', async () => {
    const s = await setup({ config: { retry: { attempts: 3 } }, google: [503, 429] });
    await routeChat(s.ctx, s.stats);
    expect(summary(s.attempts)).toStrictEqual([
      { provider: 'gcp.gemini', number: 1, target: 'config', resend: 0, ok: false },
      { provider: 'gcp.gemini', number: 2, target: 'config', resend: 1, ok: false },
      { provider: 'gcp.gemini', number: 3, target: 'config', resend: 2, ok: true },
    ]);
    expect(s.attempts[0]!.ends[0]).toMatchObject({ status: 503 });
    // Full jitter with random() = 0.5: half of 500 ms, then half of 1000 ms.
    expect(s.sleeps).toStrictEqual([250, 500]);
    expect(s.stats).toStrictEqual({ attempts: 3, finalTarget: 'config' });
  });

  it('waits for Retry-After when asked, capped at 60 s', async () => {
    const s = await setup({
      config: { retry: { attempts: 2, use_retry_after_header: true } },
      google: [{ status: 429, retryAfter: 2 }, { status: 429, retryAfter: 3600 }],
    });
    await routeChat(s.ctx, s.stats);
    expect(s.sleeps).toStrictEqual([2000, 60_000]);
  });

  it('stops retrying when the attempts are spent and returns the last error', async () => {
    const s = await setup({ config: { retry: { attempts: 1 } }, google: [503, 500] });
    await expect(routeChat(s.ctx, s.stats)).rejects.toMatchObject({ status: 500 });
    expect(s.stats.attempts).toBe(2);
  });

  it('does not retry a 400, nor a status outside on_status_codes', async () => {
    const a = await setup({ config: { retry: { attempts: 3 } }, google: [400] });
    await expect(routeChat(a.ctx, a.stats)).rejects.toMatchObject({ status: 400 });
    expect(a.stats.attempts).toBe(1);
    const b = await setup({ config: { retry: { attempts: 3, on_status_codes: [429] } }, google: [503] });
    await expect(routeChat(b.ctx, b.stats)).rejects.toMatchObject({ status: 503 });
    expect(b.stats.attempts).toBe(1);
  });

  it('always retries timeouts and dropped connections when retries are configured', async () => {
    const s = await setup({ config: { retry: { attempts: 2, on_status_codes: [429] } }, google: ['timeout', 'drop'] });
    await routeChat(s.ctx, s.stats);
    expect(s.stats.attempts).toBe(3);
    // No upstream status for a try that got no answer.
    expect(s.attempts[0]!.ends[0]!.status).toBeUndefined();
  });

  const fallback = {
    strategy: { mode: 'fallback' },
    targets: [
      { provider: 'google', override_params: { model: 'gemini-2.5-pro' } },
      { provider: 'openai', api_key: 'test-openai-key', override_params: { model: 'gpt-4o-mini' } },
    ],
  };

  it('falls back in order on a 5xx, to another provider with its own model and key', async () => {
    const s = await setup({ config: fallback, google: [503] });
    const result = await routeChat(s.ctx, s.stats);
    expect(result.completion.model).toBe('gpt-4o-mini');
    expect(summary(s.attempts)).toStrictEqual([
      { provider: 'gcp.gemini', number: 1, target: 'config.targets[0]', resend: 0, ok: false },
      { provider: 'openai', number: 2, target: 'config.targets[1]', resend: 0, ok: true },
    ]);
    expect(s.attempts.map((a) => a.start.model)).toStrictEqual(['gemini-2.5-pro', 'gpt-4o-mini']);
    expect(s.openai.calls[0]!.target).toMatchObject({ apiKey: 'test-openai-key', baseUrl: 'https://api.openai.com' });
    expect(s.google.calls[0]!.target.apiKey).toBe(KEY);
    expect(s.stats.finalTarget).toBe('config.targets[1]');
    expect(s.sleeps).toStrictEqual([]);
  });

  it.each([
    { name: '429', step: 429 as Step, falls: true },
    { name: 'timeout', step: 'timeout' as Step, falls: true },
    { name: 'dropped connection', step: 'drop' as Step, falls: true },
    { name: '400', step: 400 as Step, falls: false },
    { name: '401', step: 401 as Step, falls: false },
  ])('fallback on $name: $falls', async ({ step, falls }) => {
    const s = await setup({ config: fallback, google: [step] });
    const outcome = await routeChat(s.ctx, s.stats).then(
      () => 'ok',
      () => 'error',
    );
    expect(outcome).toBe(falls ? 'ok' : 'error');
    expect(s.stats.attempts).toBe(falls ? 2 : 1);
  });

  it('falls back on a 400 when on_status_codes lists it', async () => {
    const s = await setup({ config: { ...fallback, strategy: { mode: 'fallback', on_status_codes: [400] } }, google: [400] });
    await routeChat(s.ctx, s.stats);
    expect(s.stats.attempts).toBe(2);
  });

  it('everything fails: the last error is returned after every attempt', async () => {
    const s = await setup({
      config: { ...fallback, retry: { attempts: 1 } },
      google: [503, 503],
      openai: [500, 502],
    });
    await expect(routeChat(s.ctx, s.stats)).rejects.toMatchObject({ status: 502 });
    expect(s.stats).toStrictEqual({ attempts: 4, finalTarget: 'config.targets[1]' });
    expect(s.attempts.every((a) => a.ends.length === 1 && a.ends[0]!.error !== undefined)).toBe(true);
    expect(s.attempts.map((a) => a.start.resendCount)).toStrictEqual([0, 1, 0, 1]);
  });

  it('every attempt timing out ends in the timeout error (504)', async () => {
    const s = await setup({ config: fallback, google: ['timeout'], openai: ['timeout'] });
    await expect(routeChat(s.ctx, s.stats)).rejects.toMatchObject({ status: 504, reason: 'timeout' });
  });

  it('gives each target its own request_timeout, inherited from outer nodes', async () => {
    const s = await setup({
      config: { ...fallback, request_timeout: 250, targets: [fallback.targets[0], { ...fallback.targets[1], request_timeout: 900 }] },
      google: ['timeout'],
    });
    await routeChat(s.ctx, s.stats);
    expect([s.google.calls[0]!.target.timeoutMs, s.openai.calls[0]!.target.timeoutMs]).toStrictEqual([250, 900]);
  });

  it('loadbalance picks one target by weight, and does not fall back', async () => {
    const config = {
      strategy: { mode: 'loadbalance' },
      targets: [
        { provider: 'google', weight: 0.7 },
        { provider: 'openai', api_key: 'test-openai-key', weight: 0.3 },
      ],
    };
    const low = await setup({ config, random: () => 0.69 });
    await routeChat(low.ctx, low.stats);
    expect(low.stats.finalTarget).toBe('config.targets[0]');
    const high = await setup({ config, random: () => 0.71, openai: [503] });
    await expect(routeChat(high.ctx, high.stats)).rejects.toMatchObject({ status: 503 });
    expect(high.stats).toStrictEqual({ attempts: 1, finalTarget: 'config.targets[1]' });
  });

  it('nests: a loadbalance group inside a fallback', async () => {
    const config = {
      strategy: { mode: 'fallback' },
      targets: [
        { strategy: { mode: 'loadbalance' }, targets: [{ provider: 'google' }, { provider: 'google', weight: 0 }] },
        { provider: 'openai', api_key: 'test-openai-key' },
      ],
    };
    const s = await setup({ config, google: [500] });
    await routeChat(s.ctx, s.stats);
    expect(s.attempts.map((a) => a.start.targetIndex)).toStrictEqual(['config.targets[0].targets[0]', 'config.targets[1]']);
  });

  const conditional = {
    strategy: {
      mode: 'conditional',
      conditions: [
        { query: { 'metadata.tier': { $eq: 'pro' } }, then: 'big' },
        { query: { 'params.max_tokens': { $gt: 1000 } }, then: 'long' },
      ],
      default: 'small',
    },
    targets: [
      { name: 'small', provider: 'google', override_params: { model: 'gemini-2.5-flash-lite' } },
      { name: 'big', provider: 'google', override_params: { model: 'gemini-2.5-pro' } },
      { name: 'long', provider: 'openai', api_key: 'test-openai-key' },
    ],
  };

  it.each([
    { name: 'metadata match', metadata: { tier: 'pro' } as Record<string, string>, maxTokens: undefined, want: 'config.targets[1]' },
    { name: 'params match', metadata: {} as Record<string, string>, maxTokens: 4000, want: 'config.targets[2]' },
    { name: 'default', metadata: { tier: 'free' } as Record<string, string>, maxTokens: 10, want: 'config.targets[0]' },
  ])('conditional: $name', async ({ metadata, maxTokens, want }) => {
    const s = await setup({
      config: conditional,
      metadata,
      request: { ...request, ...(maxTokens !== undefined ? { max_tokens: maxTokens } : {}) },
    });
    await routeChat(s.ctx, s.stats);
    expect(s.stats.finalTarget).toBe(want);
  });

  it('conditional without a match and without default is a 400', async () => {
    const { default: _d, ...strategy } = conditional.strategy;
    const s = await setup({ config: { ...conditional, strategy }, metadata: {} });
    await expect(routeChat(s.ctx, s.stats)).rejects.toBeInstanceOf(InvalidRequestError);
    expect(s.stats.attempts).toBe(0);
  });

  it('a client abort during the backoff stops everything', async () => {
    const abort = new AbortController();
    const s = await setup({ config: { ...fallback, retry: { attempts: 3 } }, google: [503], signal: abort.signal });
    s.ctx.sleep = async (_ms, signal) => {
      abort.abort();
      if (signal?.aborted) throw new ClientAbortError();
    };
    await expect(routeChat(s.ctx, s.stats)).rejects.toBeInstanceOf(ClientAbortError);
    expect(s.stats.attempts).toBe(1);
    expect(s.openai.calls).toHaveLength(0);
  });

  it('a client abort during an attempt ends its span as cancelled and does not fall back', async () => {
    const abort = new AbortController();
    const s = await setup({ config: fallback, signal: abort.signal });
    s.ctx.providers = {
      ...s.ctx.providers,
      google: {
        ...s.google.provider,
        async chat() {
          abort.abort();
          throw new UpstreamError('aborted', { status: 502, reason: 'connection_error' });
        },
      },
    };
    await expect(routeChat(s.ctx, s.stats)).rejects.toBeInstanceOf(ClientAbortError);
    expect(s.attempts[0]!.ends[0]!.error).toBeInstanceOf(ClientAbortError);
    expect(s.stats.attempts).toBe(1);
  });
});

describe('routeChatStream', () => {
  const fallback = {
    strategy: { mode: 'fallback' },
    targets: [{ provider: 'google' }, { provider: 'openai', api_key: 'test-openai-key' }],
  };

  async function drain(result: StreamResult): Promise<string> {
    let text = '';
    for await (const c of result.chunks) text += (c.choices[0]?.delta as { content?: string }).content ?? '';
    return text;
  }

  it('falls back when the stream fails before it starts', async () => {
    const s = await setup({ config: fallback, google: [503] });
    const result = await routeChatStream(s.ctx, s.stats);
    expect(await drain(result)).toBe('ab');
    expect(summary(s.attempts).map((a) => a.ok)).toStrictEqual([false, true]);
    expect(s.attempts[1]!.firstChunk).toBe(1);
  });

  it('falls back when the connection drops before the first chunk', async () => {
    const s = await setup({ config: fallback, stream: { chunks: ['a'], failAt: 0 } });
    const result = await routeChatStream(s.ctx, s.stats).catch((e: unknown) => e);
    // Both fake providers share the script; the second failing the same way ends in its error.
    expect(result).toBeInstanceOf(UpstreamError);
    expect(s.stats.attempts).toBe(2);
    expect(s.attempts.every((a) => a.ends.length === 1 && a.ends[0]!.error !== undefined)).toBe(true);
  });

  it('never retries or falls back after the first chunk', async () => {
    const s = await setup({ config: { ...fallback, retry: { attempts: 3 } }, stream: { chunks: ['a', 'b'], failAt: 1 } });
    const result = await routeChatStream(s.ctx, s.stats);
    let text = '';
    const error = await (async () => {
      for await (const c of result.chunks) text += (c.choices[0]?.delta as { content?: string }).content ?? '';
    })().catch((e: unknown) => e);
    expect(text).toBe('a');
    expect(error).toBeInstanceOf(UpstreamError);
    expect(s.stats.attempts).toBe(1);
    expect(s.attempts[0]!.ends).toHaveLength(1);
    expect(s.attempts[0]!.ends[0]!.error).toBe(error);
  });

  it('ends the attempt as cancelled when the consumer stops early', async () => {
    const s = await setup({});
    const result = await routeChatStream(s.ctx, s.stats);
    for await (const _ of result.chunks) break;
    expect(s.attempts[0]!.ends).toHaveLength(1);
    expect(s.attempts[0]!.ends[0]!.error).toBeInstanceOf(ClientAbortError);
  });
});
