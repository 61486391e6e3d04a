/**
 * Traces as a product against a real Jaeger v2 (issue 8 item 5): logs of any depth sent out of
 * order, a chat call joining a log's trace, feedback posted then updated, and the summaries of
 * `GET /v1/traces[/id]` and the real `sidegate trace` binary checked against Jaeger's own spans.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { googleError } from '../../src/emulator/index.js';
import { mapSpanId, mapTraceId } from '../../src/telemetry/map-id.js';
import type { SpanNode, TraceSummary } from '../../src/traces/summarize-trace.js';
import { CLIENT, ERROR, SERVER, startGatewayUnderTest, type GatewayUnderTest } from './gateway-under-test.js';
import { ensureBinary, readTrace, startJaeger, type Jaeger, type StoredSpan } from './otel-binaries.js';

const GATEWAY_KEY = 'sg-e2e-traces-key-0123456789';
const PROVIDER_KEY = 'AIzaE2eTracesProviderKey0123456789ab';
const SERVICE = 'sidegate-traces-e2e';
const ROOT = new URL('../..', import.meta.url).pathname;

const binary = await ensureBinary('jaeger');

describe.skipIf(binary === null)('traces as a product in a real Jaeger', () => {
  let jaeger: Jaeger;
  let under: GatewayUnderTest;
  let dataDir: string;

  beforeAll(async () => {
    // The real CLI is `node dist/main.js`: build it so the test never runs stale output.
    execFileSync(process.execPath, [`${ROOT}node_modules/typescript/bin/tsc`, '-p', 'tsconfig.build.json'], { cwd: ROOT });
    jaeger = await startJaeger(binary as string);
    dataDir = await mkdtemp(join(tmpdir(), 'sidegate-traces-e2e-'));
    under = await startGatewayUnderTest({
      otlpEndpoint: jaeger.otlpHttp,
      serviceName: SERVICE,
      gatewayKey: GATEWAY_KEY,
      providerKey: PROVIDER_KEY,
      settings: { tracesUrl: jaeger.query, dataDir },
    });
  });

  afterAll(async () => {
    await under?.close();
    await jaeger?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any
    const res = await fetch(`${under.gateway.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', 'x-gateway-api-key': GATEWAY_KEY },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, body: await res.json() };
  }

  async function stored(clientTraceId: string, min: number): Promise<StoredSpan[]> {
    await under.telemetry.forceFlush();
    return readTrace(jaeger.query, mapTraceId(clientTraceId), min);
  }

  function sidegate(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        ['dist/main.js', ...args],
        { cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: dataDir, SIDEGATE_TRACES_URL: jaeger.query, OTEL_SERVICE_NAME: SERVICE } },
        (err, stdout, stderr) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
  }

  const flatten = (nodes: readonly SpanNode[]): SpanNode[] => nodes.flatMap((n) => [n, ...flatten(n.children)]);

  it('builds a 3-level tree and a 50-level chain from logs sent out of order, in two batches', async () => {
    const traceId = 'e2e-logs-tree';
    const tree = [
      { spanId: 'root', name: 'agent run' },
      { spanId: 'plan', parent: 'root', name: 'plan' },
      { spanId: 'act', parent: 'root', name: 'act' },
      { spanId: 'tool', parent: 'act', name: 'tool call' },
    ];
    const chain = Array.from({ length: 50 }, (_, i) => ({ spanId: `link-${i}`, parent: i === 0 ? 'tool' : `link-${i - 1}`, name: `link ${i}` }));
    const start = Date.now() - 60_000;
    const logs = [...tree, ...chain].map((s, i) => ({
      request: { url: 'https://tools.internal/run', method: 'POST' },
      response: { status: 200, response_time: 1000 - i },
      metadata: { traceId, spanId: s.spanId, spanName: s.name, ...(s.parent ? { parentSpanId: s.parent } : {}) },
      created_at: start + i,
    }));
    // Leaf first, root last, and the chain's halves in separate requests.
    const shuffled = [...logs].reverse();
    for (const batch of [shuffled.slice(0, 27), shuffled.slice(27)]) {
      const res = await call('POST', '/v1/logs', batch);
      expect(res.status).toBe(200);
      expect(res.body.log_ids).toHaveLength(batch.length);
    }

    const spans = await stored(traceId, 54);
    expect(spans).toHaveLength(54);
    const byName = new Map(spans.map((s) => [s.name, s]));
    for (const s of [...tree, ...chain]) {
      const span = byName.get(s.name) as StoredSpan;
      expect(span.spanId, s.name).toBe(mapSpanId(s.spanId));
      expect(span.parentSpanId, s.name).toBe(s.parent ? mapSpanId(s.parent) : '');
      expect(span.serviceName).toBe(SERVICE);
    }
    // Depth as Jaeger stores it: walk the parents from the last link up to the root.
    const bySpanId = new Map(spans.map((s) => [s.spanId, s]));
    let depth = 0;
    for (let s = byName.get('link 49'); s !== undefined; s = bySpanId.get(s.parentSpanId)) depth++;
    expect(depth).toBe(53); // link 49 … link 0 (50), tool call, act, agent run

    const summary = (await call('GET', `/v1/traces/${traceId}`)).body as TraceSummary;
    let node: SpanNode | undefined = summary.spans.find((n) => n.name === 'agent run');
    let levels = 0;
    for (; node !== undefined; node = node.children.find((c) => c.name !== 'plan')) levels++;
    expect(levels).toBe(53);
  });

  it('puts a chat call with the log’s x-gateway-trace-id in the same trace, records feedback and its update, and the API, the CLI and Jaeger agree', async () => {
    const traceId = `e2e-shared-${Date.now()}`;
    // The app's own step, logged, with an LLM call made elsewhere inside it.
    const logs = await call('POST', '/v1/logs', [
      {
        request: {},
        response: { response_time: 5000 },
        metadata: { traceId, spanId: 'app-step', spanName: 'answer question' },
        created_at: Date.now() - 2000,
      },
      {
        request: { body: { model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hi' }] } },
        response: {
          status: 200,
          response_time: 300,
          body: {
            id: 'x',
            model: 'gemini-2.5-flash',
            choices: [{ index: 0, message: { role: 'assistant', content: 'hello' }, finish_reason: 'stop' }],
            usage: { prompt_tokens: 1000, completion_tokens: 200, total_tokens: 1200 },
          },
        },
        metadata: { traceId, spanId: 'elsewhere', parentSpanId: 'app-step' },
        created_at: Date.now() - 1900,
      },
    ]);
    expect(logs.status).toBe(200);

    // A chat call through the gateway under the logged step; its first try fails and is retried.
    under.emulator.enqueue({ status: 503, body: googleError(503, 'The model is overloaded.') });
    const { data, response } = await under.client.chat.completions
      .create(
        { model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hello jaeger' }] },
        {
          headers: {
            'x-gateway-trace-id': traceId,
            'x-gateway-parent-span-id': 'app-step',
            'x-gateway-config': JSON.stringify({ retry: { attempts: 2 } }),
          },
        },
      )
      .withResponse();
    expect(data.choices[0]?.message.content).toBeTruthy();
    expect(response.headers.get('x-gateway-trace-id')).toBe(traceId);

    const posted = await call('POST', '/v1/feedback', { trace_id: traceId, value: 9, weight: 0.5, metadata: { user: 'u-42' } });
    expect(posted.status).toBe(200);
    const feedbackId = posted.body.feedback_ids[0] as string;
    const updated = await call('PUT', `/v1/feedback/${feedbackId}`, { value: -2, metadata: { user: 'u-42', reason: 'wrong' } });
    expect(updated.status).toBe(200);
    const other = await call('POST', '/v1/feedback', { trace_id: traceId, value: 6 });
    expect(other.status).toBe(200);

    // 2 logs + request + 2 attempts + 3 feedback spans, all in one trace in Jaeger.
    const spans = await stored(traceId, 8);
    expect(spans).toHaveLength(8);
    const server = spans.find((s) => s.kind === SERVER) as StoredSpan;
    expect(server.parentSpanId).toBe(mapSpanId('app-step'));
    const ns = (s: StoredSpan, key: 'startTimeUnixNano' | 'endTimeUnixNano') => BigInt((s.raw as Record<string, string>)[key] ?? 0);
    const attempts = spans
      .filter((s) => s.kind === CLIENT && s.parentSpanId === server.spanId)
      .sort((a, b) => (ns(a, 'startTimeUnixNano') < ns(b, 'startTimeUnixNano') ? -1 : 1));
    expect(attempts.map((a) => a.status.code === ERROR)).toStrictEqual([true, false]);

    // The summary against Jaeger's own spans.
    const api = await call('GET', `/v1/traces/${traceId}`);
    expect(api.status).toBe(200);
    const summary = api.body as TraceSummary;
    expect(summary.trace_id).toBe(mapTraceId(traceId));
    const nodes = flatten(summary.spans);
    expect(nodes).toHaveLength(spans.length);
    expect(summary.totals.spans).toBe(spans.length);
    for (const span of spans) {
      const node = nodes.find((n) => n.span_id === span.spanId) as SpanNode;
      expect(node.name).toBe(span.name);
      expect(node.parent_span_id).toBe(span.parentSpanId === '' ? null : span.parentSpanId);
      expect(node.duration_ms).toBe(Number((ns(span, 'endTimeUnixNano') - ns(span, 'startTimeUnixNano')) / 1000n) / 1000);
    }
    const billed = spans.filter((s) => s.attributes['gateway.attempt.number'] !== undefined || s.attributes['gateway.log.id'] !== undefined);
    const cost = billed.reduce((sum, s) => sum + Number(s.attributes['gateway.cost.usd'] ?? 0), 0);
    expect(cost).toBeGreaterThan(0);
    expect(summary.totals.cost_usd).toBeCloseTo(cost, 12);
    expect(summary.totals.input_tokens).toBe(billed.reduce((sum, s) => sum + Number(s.attributes['gen_ai.usage.input_tokens'] ?? 0), 0));
    expect(summary.totals.llm_calls).toBe(3); // two attempts and the logged chat completion
    expect(summary.totals.failed_attempts).toBe(1);
    const work = spans.filter((s) => s.name !== 'feedback');
    const first = work.reduce((min, s) => (ns(s, 'startTimeUnixNano') < min ? ns(s, 'startTimeUnixNano') : min), ns(work[0]!, 'startTimeUnixNano'));
    const last = work.reduce((max, s) => (ns(s, 'endTimeUnixNano') > max ? ns(s, 'endTimeUnixNano') : max), 0n);
    expect(summary.duration_ms).toBe(Number((last - first) / 1000n) / 1000);

    // Feedback: the update replaced the first version; the mean is over the latest of each id.
    expect(summary.totals.feedback_count).toBe(2);
    expect(summary.totals.feedback_weighted_mean).toBe(Math.round(((-2 * 1 + 6 * 1) / 2) * 1e6) / 1e6);
    expect(summary.feedback.find((f) => f.id === feedbackId)).toMatchObject({ value: -2, weight: 1, versions: 2, metadata: { user: 'u-42', reason: 'wrong' } });

    // The real CLI: --json is the API's answer; the text shows the tree, the ✗ and the totals.
    const json = await sidegate(['trace', traceId, '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toStrictEqual(summary);
    const text = await sidegate(['trace', traceId]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`trace ${mapTraceId(traceId)}`);
    expect(text.stdout).toMatch(/✗ generate_content gemini-2\.5-flash {2}\[client · attempt · #1 · gcp\.gemini\] {2}error 503/);
    expect(text.stdout).toContain(`totals: 8 spans · 3 LLM calls (1 failed) · ${summary.totals.input_tokens} in / ${summary.totals.output_tokens} out tokens`);
    // The logged LLM call sits one level under the logged step, the retried attempts two levels under it.
    const lines = text.stdout.split('\n');
    expect(lines.find((l) => l.startsWith('answer question'))).toBeDefined();
    expect(lines.filter((l) => /^[├└]─ log gemini-2\.5-flash/.test(l))).toHaveLength(1);
    expect(lines.filter((l) => /^[│ ] {2}[├└]─ (✗ )?generate_content/.test(l))).toHaveLength(2);

    // The list holds this trace with the same totals.
    const list = await call('GET', '/v1/traces?since=1h&limit=50');
    expect(list.status).toBe(200);
    expect(list.body.service).toBe(SERVICE);
    const listed = (list.body.data as Array<{ trace_id: string; totals: unknown }>).find((t) => t.trace_id === mapTraceId(traceId));
    expect(listed?.totals).toStrictEqual(summary.totals);
    expect((list.body.data as Array<{ trace_id: string }>).map((t) => t.trace_id)).toContain(mapTraceId('e2e-logs-tree'));
    const cliList = await sidegate(['traces', '--since', '1h', '--json']);
    expect(cliList.code).toBe(0);
    expect(JSON.parse(cliList.stdout).data.find((t: { trace_id: string }) => t.trace_id === mapTraceId(traceId))?.totals).toStrictEqual(summary.totals);
  });

  it('answers 404 for a trace Jaeger does not have, from the API and the CLI', async () => {
    const api = await call('GET', '/v1/traces/never-sent-anything');
    expect(api.status).toBe(404);
    expect(api.body.error.code).toBe('trace_not_found');
    expect(api.body.error.message).toContain(`Jaeger at ${jaeger.query}`);
    const cli = await sidegate(['trace', 'never-sent-anything']);
    expect(cli.code).toBe(1);
    expect(cli.stderr).toContain('not found in Jaeger');
  });
});
