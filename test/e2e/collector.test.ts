/**
 * otel-collector.yaml, run by a real OpenTelemetry Collector built with ocb (issue 4 point 6):
 * gateway spans go through it into a real Jaeger with message content removed, secret-looking
 * values masked, errors kept by tail sampling and unremarkable traces sampled away.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { googleError, type Emulator } from '../../src/emulator/index.js';
import type { SidegateTelemetry } from '../../src/telemetry/create-telemetry.js';
import { mapTraceId } from '../../src/telemetry/map-id.js';
import { startGatewayUnderTest, type GatewayUnderTest } from './gateway-under-test.js';
import { ensureBinary, freePort, readTrace, runWithConfig, startJaeger, type Jaeger, type RunningProcess } from './otel-binaries.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const GATEWAY_KEY = 'sg-e2e-collector-gateway-key-01234';
const PROVIDER_KEY = 'AIzaCollectorProviderKey0123456789ab';
const LEAKED = 'AIzaLeakedIntoMetadata0123456789abcd';

const [jaegerBinary, collectorBinary] = await Promise.all([ensureBinary('jaeger'), ensureBinary('collector')]);

describe.skipIf(jaegerBinary === null || collectorBinary === null)('otel-collector.yaml in a real collector', () => {
  let jaeger: Jaeger;
  let collector: RunningProcess;
  let under: GatewayUnderTest;
  let emulator: Emulator;
  let telemetry: SidegateTelemetry;
  let client: OpenAI;

  beforeAll(async () => {
    jaeger = await startJaeger(jaegerBinary as string);
    const [grpc, http, health] = await Promise.all([freePort(), freePort(), freePort()]);
    collector = await runWithConfig(
      collectorBinary as string,
      'otelcol',
      readFileSync(join(ROOT, 'otel-collector.yaml'), 'utf8'),
      `http://127.0.0.1:${health}/`,
      {
        OTELCOL_OTLP_GRPC_ENDPOINT: `127.0.0.1:${grpc}`,
        OTELCOL_OTLP_HTTP_ENDPOINT: `127.0.0.1:${http}`,
        OTELCOL_HEALTH_ENDPOINT: `127.0.0.1:${health}`,
        JAEGER_OTLP_GRPC_ENDPOINT: jaeger.otlpGrpc.replace('http://', ''),
        OTELCOL_DECISION_WAIT: '1s',
        OTELCOL_SAMPLE_PERCENTAGE: '0',
      },
    );
    under = await startGatewayUnderTest({
      otlpEndpoint: `http://127.0.0.1:${http}`,
      serviceName: 'sidegate-collector-e2e',
      gatewayKey: GATEWAY_KEY,
      providerKey: PROVIDER_KEY,
      env: { OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' },
    });
    ({ emulator, telemetry, client } = under);
  });

  afterAll(async () => {
    await under?.close();
    await collector?.stop();
    await jaeger?.close();
  });

  it('delivers error traces to Jaeger without message content or secrets, and samples away the rest', async () => {
    const okTrace = mapTraceId(`collector-ok-${Date.now()}`);
    const errorTrace = mapTraceId(`collector-error-${Date.now()}`);
    await client.chat.completions.create(
      { model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'an unremarkable secret prompt' }] },
      { headers: { 'x-gateway-trace-id': okTrace } },
    );
    emulator.enqueue({ status: 503, body: googleError(503, 'The model is overloaded. Please try again later.') });
    await client.chat.completions
      .create(
        { model: 'gemini-2.5-flash', messages: [{ role: 'system', content: 'system secret' }, { role: 'user', content: 'a failing secret prompt' }] },
        { headers: { 'x-gateway-trace-id': errorTrace, 'x-gateway-metadata': JSON.stringify({ note: LEAKED, team: 'search' }) } },
      )
      .catch(() => undefined);
    await telemetry.forceFlush();

    const spans = await readTrace(jaeger.query, errorTrace, 2, 30_000);
    const server = spans.find((s) => s.kind === 2);
    expect(server?.attributes['gen_ai.request.model']).toStrictEqual('gemini-2.5-flash');
    expect(server?.attributes['gateway.metadata.team']).toStrictEqual('search');
    expect(server?.attributes['gateway.metadata.note']).not.toStrictEqual(LEAKED);
    for (const span of spans) {
      const content = ['gen_ai.input.messages', 'gen_ai.output.messages', 'gen_ai.system_instructions'];
      expect(Object.keys(span.attributes).filter((k) => content.includes(k))).toStrictEqual([]);
    }
    const raw = await (await fetch(`${jaeger.query}/api/v3/traces/${errorTrace}`)).text();
    for (const secret of ['secret prompt', 'system secret', LEAKED, PROVIDER_KEY, GATEWAY_KEY]) expect(raw).not.toContain(secret);

    // Both traces were decided together; the successful, fast one fell to the 0 % share.
    const ok = await fetch(`${jaeger.query}/api/v3/traces/${okTrace}`);
    expect(ok.status).toStrictEqual(404);
  });
});
