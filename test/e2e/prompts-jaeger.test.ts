/**
 * End to end against a real Jaeger v2 (issue 10): prompt completions rendered from a prompts
 * directory, sent with the official `openai` SDK, exported by the real OTel SDK; the prompt
 * attributes are read back from Jaeger's HTTP API, and the gateway's own trace summary (read from
 * the same Jaeger) groups cost by prompt version.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChatCompletion } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mapTraceId } from '../../src/telemetry/map-id.js';
import { CLIENT, SERVER, startGatewayUnderTest, type GatewayUnderTest } from './gateway-under-test.js';
import { ensureBinary, readTrace, startJaeger, type Jaeger } from './otel-binaries.js';

const GATEWAY_KEY = 'sg-e2e-gateway-key-0123456789';
const PROVIDER_KEY = 'AIzaE2eProviderKey0123456789abcdef';

const binary = await ensureBinary('jaeger');

describe.skipIf(binary === null)('prompt calls in a real Jaeger', () => {
  let jaeger: Jaeger;
  let under: GatewayUnderTest;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sidegate-prompts-e2e-'));
    await mkdir(join(dir, 'greet'));
    await writeFile(
      join(dir, 'greet/1.yaml'),
      'model: gemini-2.5-flash\nmessages:\n  - {role: system, content: "Greet {{name}} briefly."}\n  - {role: user, content: "hello"}\n',
    );
    await writeFile(join(dir, 'greet/2.json'), JSON.stringify({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'Say hi to {{name}}, v2' }] }));
    await writeFile(join(dir, 'greet/labels.json'), JSON.stringify({ production: 2 }));
    jaeger = await startJaeger(binary as string);
    under = await startGatewayUnderTest({
      otlpEndpoint: jaeger.otlpHttp,
      serviceName: 'sidegate-prompts-e2e',
      gatewayKey: GATEWAY_KEY,
      providerKey: PROVIDER_KEY,
      env: { OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' },
      settings: { promptsDir: dir, tracesUrl: jaeger.query },
    });
  });

  afterAll(async () => {
    await under?.close();
    await jaeger?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('puts gateway.prompt.* on the request span, and the summary groups cost by prompt version', async () => {
    const traceId = mapTraceId(`prompt-e2e-${Date.now()}`);
    const headers = { 'x-gateway-trace-id': traceId };
    await under.client.post<ChatCompletion>('/prompts/greet/completions', { body: { version: 1, variables: { name: 'Ada' } }, headers });
    await under.client.post<ChatCompletion>('/prompts/greet/completions', { body: { label: 'production', variables: { name: 'Bob' } }, headers });
    await under.telemetry.forceFlush();

    const spans = await readTrace(jaeger.query, traceId, 4);
    const servers = spans.filter((s) => s.kind === SERVER).sort((a, b) => Number(a.attributes['gateway.prompt.version']) - Number(b.attributes['gateway.prompt.version']));
    expect(servers).toHaveLength(2);
    expect(servers[0]!.attributes).toMatchObject({
      'gateway.prompt.id': 'greet',
      'gateway.prompt.version': 1,
      'gateway.prompt.variables': '{"name":"Ada"}',
      'http.route': '/v1/prompts/{id}/completions',
    });
    expect(servers[0]!.attributes['gateway.prompt.label']).toBeUndefined();
    expect(servers[1]!.attributes).toMatchObject({
      'gateway.prompt.id': 'greet',
      'gateway.prompt.version': 2,
      'gateway.prompt.label': 'production',
      'gateway.prompt.variables': '{"name":"Bob"}',
    });
    const attempts = spans.filter((s) => s.kind === CLIENT);
    expect(attempts.map((a) => servers.some((s) => s.spanId === a.parentSpanId))).toStrictEqual([true, true]);

    const summary = await under.client.get<{ prompts: Array<Record<string, unknown>>; totals: { cost_usd: number } }>(`/traces/${traceId}`);
    expect(summary.prompts.map((p) => [p.prompt_id, p.prompt_version, p.requests, p.llm_calls])).toStrictEqual([
      ['greet', 1, 1, 1],
      ['greet', 2, 1, 1],
    ]);
    const costs = summary.prompts.map((p) => p.cost_usd as number);
    expect(costs.every((c) => c > 0)).toBe(true);
    expect(Math.round((costs[0]! + costs[1]!) * 1e9) / 1e9).toBe(summary.totals.cost_usd);
  });
});
