import { describe, expect, it } from 'vitest';
import { createRoutingConfigStore } from '../config/routing-config.js';
import { AllTargetsCoolingDownError, ClientAbortError, UpstreamError } from '../errors.js';
import type { ChatCompletion } from '../openai/chat-response.js';
import type { ChatResult, Provider, ProviderCall, ProviderName } from '../providers/provider.js';
import type { AttemptEnd, AttemptStart, RequestSpan, TargetSkip } from '../telemetry/telemetry.js';
import { resolvePlan, type PlanEnvironment } from './resolve-plan.js';
import { identityOf, verdictOf } from './route-health.js';
import { routeChat, type RouteStats } from './route-request.js';
import { TargetHealthRegistry } from './target-health-registry.js';

// Obviously fake credentials.
const KEY = 'test-key-0000';
const OTHER_KEY = 'test-key-1111';

type Step = 'ok' | number | { status: number; retryAfter: number } | { wait: Promise<void> };

/** A provider answering from a script per base URL (targets A and B differ by `custom_host`). */
function scriptedProvider(name: ProviderName, scripts: Map<string, Step[]>) {
  const calls: string[] = [];
  const provider: Provider = {
    name,
    telemetryName: name === 'google' ? 'gcp.gemini' : 'openai',
    operationName: 'generate_content',
    async chat(call: ProviderCall): Promise<ChatResult> {
      calls.push(call.target.baseUrl);
      let step = scripts.get(call.target.baseUrl)?.shift() ?? 'ok';
      if (typeof step === 'object' && 'wait' in step) {
        await step.wait;
        step = 'ok';
      }
      if (typeof step === 'number') throw new UpstreamError(`status ${step}`, { status: step });
      if (step !== 'ok') throw new UpstreamError('slow down', { status: step.status, retryAfterSeconds: step.retryAfter });
      const completion = { id: 'c', object: 'chat.completion', created: 1, model: 'm', choices: [] } as unknown as ChatCompletion;
      return { status: 200, completion, outcome: { finishReasons: ['stop'], warnings: [] } };
    },
    chatStream: () => Promise.reject(new Error('not used')),
  };
  return { provider, calls };
}

const A = 'http://127.0.0.1:1001';
const B = 'http://127.0.0.1:1002';
const planEnv: PlanEnvironment = {
  configs: createRoutingConfigStore({}),
  virtualKeys: { get: () => undefined },
  baseUrls: { google: A, openai: 'https://api.openai.com' },
  customHosts: ['127.0.0.1'],
  timeoutMs: 1000,
};

/** One sidecar: a registry with a fake clock, and a provider scripted per target. */
function world(options: { circuitBreaker?: boolean; retryBudgetPercent?: number; sleepMovesClock?: boolean } = {}) {
  const clock = { now: 0 };
  const sleeps: number[] = [];
  const health = new TargetHealthRegistry({
    circuitBreaker: options.circuitBreaker ?? true,
    retryBudgetPercent: options.retryBudgetPercent ?? 20,
    clock: () => clock.now,
    random: () => 0.5,
  });
  const scripts = new Map<string, Step[]>([
    [A, []],
    [B, []],
  ]);
  const google = scriptedProvider('google', scripts);

  async function send(config?: unknown, opts: { apiKey?: string; random?: () => number; signal?: AbortSignal } = {}) {
    const parsed = config === undefined ? undefined : await planEnv.configs.resolve(JSON.stringify(config));
    const credentials = { provider: 'google' as const, apiKey: opts.apiKey ?? KEY, strictCompliance: true, timeoutMs: 1000 };
    const attempts: Array<{ start: AttemptStart; end?: AttemptEnd }> = [];
    const skips: TargetSkip[] = [];
    const span: Pick<RequestSpan, 'startAttempt' | 'targetSkipped'> = {
      startAttempt(start) {
        const rec: { start: AttemptStart; end?: AttemptEnd } = { start };
        attempts.push(rec);
        return { traceHeaders: () => ({}), firstChunk: () => {}, end: (r) => void (rec.end = r) };
      },
      targetSkipped: (skip) => void skips.push(skip),
    };
    const stats: RouteStats = { attempts: 0 };
    const before = google.calls.length;
    let error: unknown;
    try {
      await routeChat(
        {
          request: { model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hi' }] },
          plan: resolvePlan({ config: parsed, credentials }, planEnv),
          span,
          metadata: {},
          providers: { google: google.provider, openai: undefined },
          signal: opts.signal ?? new AbortController().signal,
          random: opts.random ?? (() => 0.5),
          sleep: async (ms) => {
            sleeps.push(ms);
            if (options.sleepMovesClock) clock.now += ms;
          },
          health,
        },
        stats,
      );
    } catch (err) {
      error = err;
    }
    // What this request sent: one attempt span per provider call (`calls` counts every request's).
    return { error, stats, attempts, skips, sent: attempts.map((a) => a.start.baseUrl), calls: google.calls.length - before };
  }
  return { clock, health, scripts, send, sleeps };
}

const fallbackAB = (extra: Record<string, unknown> = {}) => ({
  strategy: { mode: 'fallback' },
  ...extra,
  targets: [{ custom_host: A }, { custom_host: B }],
});
const fail = (w: ReturnType<typeof world>, url: string, steps: Step[]) => w.scripts.get(url)!.push(...steps);

describe('skipping an open target', () => {
  it('goes straight to the fallback, with an event instead of an attempt', async () => {
    const w = world();
    fail(w, A, [500, 500, 500, 500, 500]);
    for (let i = 0; i < 5; i++) expect((await w.send(fallbackAB())).sent).toStrictEqual([A, B]);
    w.clock.now = 100;
    const r = await w.send(fallbackAB());
    expect(r.error).toBeUndefined();
    expect(r.sent).toStrictEqual([B]);
    expect(r.attempts.map((a) => a.start.targetIndex)).toStrictEqual(['config.targets[1]']);
    expect(r.stats).toStrictEqual({ attempts: 1, finalTarget: 'config.targets[1]', skippedTargets: 1 });
    expect(r.skips).toStrictEqual([
      {
        targetIndex: 'config.targets[0]',
        providerName: 'gcp.gemini',
        model: 'gemini-2.5-flash',
        baseUrl: A,
        credentialId: expect.stringMatching(/^[0-9a-f]{12}$/),
        reason: 'cooling_down',
        retryInMs: 4900,
      },
    ]);
    expect(JSON.stringify(r.skips)).not.toContain(KEY);
  });

  it('a retry schedule is not spent on a target that opens: the breaker stops it', async () => {
    const w = world();
    fail(w, A, Array(20).fill(503));
    // failure_threshold 2: the second failure opens A, so the third try never happens.
    const r = await w.send(fallbackAB({ retry: { attempts: 3 }, circuit_breaker: { failure_threshold: 2 } }));
    expect(r.sent).toStrictEqual([A, A, B]);
  });

  it('with no fallback, a retry waits out a short cooldown and goes as the probe', async () => {
    const w = world({ sleepMovesClock: true });
    fail(w, A, [{ status: 503, retryAfter: 1 }]);
    const r = await w.send({ retry: { attempts: 2 } });
    expect(r.error).toBeUndefined();
    expect(w.sleeps).toStrictEqual([1000]);
    expect(r.attempts.map((a) => [a.start.resendCount, a.start.probe])).toStrictEqual([
      [0, undefined],
      [1, true],
    ]);
  });

  it('with no fallback, a cooldown longer than the backoff ceiling (8 s) ends the retries', async () => {
    const w = world({ sleepMovesClock: true });
    fail(w, A, [{ status: 429, retryAfter: 30 }]);
    const r = await w.send({ retry: { attempts: 2 } });
    expect(r.error).toMatchObject({ status: 429, retryAfterSeconds: 30 });
    expect(w.sleeps).toStrictEqual([]);
    expect(r.sent).toStrictEqual([A]);
  });

  it('the target is the provider, base URL, model and credential: another key is another target', async () => {
    const w = world();
    fail(w, A, [{ status: 429, retryAfter: 2 }]);
    await w.send(undefined);
    expect((await w.send(undefined)).error).toBeInstanceOf(AllTargetsCoolingDownError);
    expect((await w.send(undefined, { apiKey: OTHER_KEY })).sent).toStrictEqual([A]);
    expect((await w.send({ override_params: { model: 'gemini-2.5-pro' } })).sent).toStrictEqual([A]);
  });

  it('SIDEGATE_CIRCUIT_BREAKER=false: never skips', async () => {
    const w = world({ circuitBreaker: false });
    fail(w, A, Array(10).fill(500));
    for (let i = 0; i < 10; i++) expect((await w.send(fallbackAB())).sent).toStrictEqual([A, B]);
    expect([...w.health.readings()].map((t) => t.state)).toStrictEqual(['closed', 'closed']);
  });
});

describe('no target left', () => {
  it('fail_fast (default): 503 all_targets_cooling_down with the soonest Retry-After, nothing sent', async () => {
    const w = world();
    fail(w, A, [{ status: 503, retryAfter: 2 }]);
    fail(w, B, [{ status: 429, retryAfter: 30 }]);
    await w.send(fallbackAB());
    w.clock.now = 500;
    const r = await w.send(fallbackAB());
    expect(r.calls).toBe(0);
    expect(r.attempts).toStrictEqual([]);
    expect(r.error).toBeInstanceOf(AllTargetsCoolingDownError);
    expect(r.error).toMatchObject({ status: 503, code: 'all_targets_cooling_down', type: 'api_error', retryAfterSeconds: 2 });
    expect(r.stats.skippedTargets).toBe(2);
    expect(r.skips.map((s) => [s.targetIndex, s.retryInMs])).toStrictEqual([
      ['config.targets[0]', 1500],
      ['config.targets[1]', 29_500],
    ]);
  });

  it('on_all_open "try": the last target is tried anyway, the others still skipped', async () => {
    const w = world();
    fail(w, A, [{ status: 503, retryAfter: 10 }]);
    fail(w, B, [{ status: 503, retryAfter: 10 }]);
    const cfg = fallbackAB({ circuit_breaker: { on_all_open: 'try' } });
    await w.send(cfg);
    const r = await w.send(cfg);
    expect(r.error).toBeUndefined();
    expect(r.sent).toStrictEqual([B]);
    expect(r.stats.skippedTargets).toBe(1);
    expect(r.attempts[0]!.start.probe).toBeUndefined();
    // It answered: B is closed again, A still cools down.
    expect([...w.health.readings()].map((t) => [t.baseUrl, t.state])).toStrictEqual([
      [A, 'open'],
      [B, 'closed'],
    ]);
  });

  it('without a config, the one target fails fast once open', async () => {
    const w = world();
    fail(w, A, [500, 500, 500, 500, 500]);
    for (let i = 0; i < 5; i++) expect((await w.send()).error).toMatchObject({ status: 500 });
    const r = await w.send();
    expect(r.error).toMatchObject({ status: 503, code: 'all_targets_cooling_down', retryAfterSeconds: 5 });
    expect(r.stats).toStrictEqual({ attempts: 0, skippedTargets: 1 });
  });
});

describe('the probe', () => {
  it('after the cooldown one request is the probe; meanwhile others skip; its success closes the breaker', async () => {
    const w = world();
    // The probe is held in flight: A answers it only when released.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    fail(w, A, [{ status: 503, retryAfter: 1 }, { wait: held }]);
    await w.send(fallbackAB());
    w.clock.now = 1000;
    const probe = w.send(fallbackAB());
    const during = await w.send(fallbackAB());
    expect(during.sent).toStrictEqual([B]);
    expect(during.skips.map((s) => s.reason)).toStrictEqual(['probe_in_flight']);
    release();
    await held;
    const p = await probe;
    expect(p.sent).toStrictEqual([A]);
    expect(p.attempts.map((a) => a.start.probe)).toStrictEqual([true]);
    expect((await w.send(fallbackAB())).sent).toStrictEqual([A]);
  });

  it('a failed probe opens the breaker for the next, longer cooldown', async () => {
    const w = world();
    fail(w, A, [500, 500, 500, 500, 500, 500]);
    for (let i = 0; i < 5; i++) await w.send(fallbackAB());
    w.clock.now = 5000;
    const p = await w.send(fallbackAB());
    expect(p.sent).toStrictEqual([A, B]);
    expect(p.attempts.map((a) => [a.start.probe, a.end?.error !== undefined])).toStrictEqual([
      [true, true],
      [undefined, false],
    ]);
    w.clock.now = 14_999;
    expect((await w.send(fallbackAB())).sent).toStrictEqual([B]);
    w.clock.now = 15_000;
    expect((await w.send(fallbackAB())).attempts[0]!.start.probe).toBe(true);
  });

  it('a probe the client abandons frees the slot for the next request', async () => {
    const w = world();
    fail(w, A, [{ status: 503, retryAfter: 1 }]);
    await w.send(fallbackAB());
    w.clock.now = 1000;
    const abort = new AbortController();
    abort.abort();
    const gone = await w.send(fallbackAB(), { signal: abort.signal });
    expect(gone.error).toBeInstanceOf(ClientAbortError);
    expect((await w.send(fallbackAB())).attempts[0]!.start.probe).toBe(true);
  });
});

describe('the retry budget', () => {
  it('a refused retry ends the target (fallback still applies) and is marked on the last attempt', async () => {
    // Breaking off, to see the budget alone; 0 % leaves the floor of 30 retries per 10 s.
    const w = world({ circuitBreaker: false, retryBudgetPercent: 0 });
    fail(w, A, Array(200).fill(503));
    let retries = 0;
    let last: Awaited<ReturnType<typeof w.send>> | undefined;
    for (let i = 0; i < 12; i++) {
      last = await w.send(fallbackAB({ retry: { attempts: 3 } }));
      retries += last.sent.filter((u) => u === A).length - 1;
    }
    expect(retries).toBe(30);
    expect(last!.sent).toStrictEqual([A, B]);
    expect(last!.attempts[0]!.end).toMatchObject({ retryBudgetExhausted: true, status: 503 });
    expect(last!.attempts[1]!.end?.retryBudgetExhausted).toBeUndefined();
  });

  it("a config's retry.budget_percent wins over the default", async () => {
    const w = world({ circuitBreaker: false, retryBudgetPercent: 0 });
    // 100 healthy requests, then a failing one may retry: 100 % of 100 > the floor.
    for (let i = 0; i < 100; i++) await w.send(undefined);
    fail(w, A, Array(500).fill(503));
    const sent = async (retry: Record<string, unknown>) => {
      let n = 0;
      for (let i = 0; i < 20; i++) n += (await w.send({ retry })).sent.length;
      return n;
    };
    // 120 requests in the window at 100 %: all 100 retries fit.
    expect(await sent({ attempts: 5, budget_percent: 100 })).toBe(20 + 100);
    // A fresh window and the default (0 % here): only the floor of 30 retries per 10 s.
    w.clock.now = 20_000;
    expect(await sent({ attempts: 5 })).toBe(20 + 30);
  });
});

describe('load-balanced targets', () => {
  it('an open target gets no share until it cools down, then the request picked for it probes', async () => {
    const w = world();
    const lb = { strategy: { mode: 'loadbalance' }, targets: [{ custom_host: A }, { custom_host: B }] };
    fail(w, A, [{ status: 503, retryAfter: 3 }]);
    // random 0.1 picks A (the first half of the weights).
    expect((await w.send(lb, { random: () => 0.1 })).sent).toStrictEqual([A]);
    for (let i = 0; i < 5; i++) {
      const r = await w.send(lb, { random: () => 0.1 });
      expect(r.sent).toStrictEqual([B]);
      expect(r.skips).toStrictEqual([]);
    }
    w.clock.now = 3000;
    const probe = await w.send(lb, { random: () => 0.1 });
    expect(probe.sent).toStrictEqual([A]);
    expect(probe.attempts[0]!.start.probe).toBe(true);
  });

  it('when every target is open, the pick falls on one and the request fails fast', async () => {
    const w = world();
    const lb = { strategy: { mode: 'loadbalance' }, targets: [{ custom_host: A }, { custom_host: B }] };
    fail(w, A, [{ status: 503, retryAfter: 3 }]);
    fail(w, B, [{ status: 503, retryAfter: 3 }]);
    await w.send(lb, { random: () => 0.1 });
    await w.send(lb, { random: () => 0.9 });
    const r = await w.send(lb, { random: () => 0.9 });
    expect(r.error).toMatchObject({ code: 'all_targets_cooling_down', retryAfterSeconds: 3 });
    expect(r.skips.map((s) => s.targetIndex)).toStrictEqual(['config.targets[1]']);
  });
});

describe('verdictOf', () => {
  it.each([
    { name: 'a 500 counts against the target', error: new UpstreamError('x', { status: 500 }), want: { kind: 'failed' } },
    { name: 'a 429 without a delay', error: new UpstreamError('x', { status: 429 }), want: { kind: 'failed' } },
    { name: 'a 429 with Retry-After opens at once', error: new UpstreamError('x', { status: 429, retryAfterSeconds: 2 }), want: { kind: 'failed', retryAfterMs: 2000 } },
    { name: 'a 503 with RetryInfo 0.5 s', error: new UpstreamError('x', { status: 503, retryAfterSeconds: 0.5 }), want: { kind: 'failed', retryAfterMs: 500 } },
    { name: 'a 500 with Retry-After only counts', error: new UpstreamError('x', { status: 500, retryAfterSeconds: 2 }), want: { kind: 'failed' } },
    { name: 'a timeout', error: new UpstreamError('x', { status: 504, reason: 'timeout' }), want: { kind: 'failed' } },
    { name: 'a refused connection', error: new UpstreamError('x', { status: 502, reason: 'connection_error' }), want: { kind: 'failed' } },
    { name: 'a 400 shows the target is up', error: new UpstreamError('x', { status: 400 }), want: { kind: 'answered' } },
    { name: 'an event too large is not an outage', error: new UpstreamError('x', { status: 502, retryable: false }), want: { kind: 'answered' } },
    { name: 'a client abort says nothing', error: new ClientAbortError(), want: { kind: 'unknown' } },
    { name: 'a bug says nothing', error: new TypeError('x'), want: { kind: 'unknown' } },
  ])('$name', ({ error, want }) => {
    expect(verdictOf(error)).toStrictEqual(want);
  });
});

describe('identityOf', () => {
  const provider = { telemetryName: 'gcp.vertex_ai' } as Provider;
  const vertexTarget = (projectId: string, region = 'us-central1') => ({
    provider: 'vertex-ai' as ProviderName,
    apiKey: '',
    baseUrl: 'https://aiplatform.googleapis.com',
    strictCompliance: true,
    timeoutMs: 1000,
    vertex: { projectId, region },
  });

  it('a Vertex AI target is also its project and region (one base URL, two targets)', () => {
    const a = identityOf(vertexTarget('proj-a'), provider, 'gemini-2.5-flash');
    expect(a).toStrictEqual({ providerName: 'gcp.vertex_ai', baseUrl: 'https://aiplatform.googleapis.com', model: 'gemini-2.5-flash', apiKey: a.apiKey });
    expect(identityOf(vertexTarget('proj-b'), provider, 'gemini-2.5-flash').apiKey).not.toBe(a.apiKey);
    expect(identityOf(vertexTarget('proj-a', 'europe-west4'), provider, 'gemini-2.5-flash').apiKey).not.toBe(a.apiKey);
    const w = world();
    expect(w.health.entry(a)).not.toBe(w.health.entry(identityOf(vertexTarget('proj-b'), provider, 'gemini-2.5-flash')));
  });
});
