/**
 * End to end against a real Jaeger v2 (issue 4 point 5): the gateway runs in-process with the
 * real OTel SDK exporting OTLP to Jaeger, the Gemini emulator stands in for Google, the official
 * `openai` SDK sends the traffic, and every assertion reads the trace back from Jaeger's HTTP API.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { googleError, type Emulator } from '../../src/emulator/index.js';
import type { RunningGateway } from '../../src/gateway/start-gateway.js';
import { createTelemetry, type SidegateTelemetry } from '../../src/telemetry/create-telemetry.js';
import { mapSpanId, mapTraceId } from '../../src/telemetry/map-id.js';
import type { RequestStart } from '../../src/telemetry/telemetry.js';
import { E2E_EXPORT_WORKER_URL } from './export-worker-build.js';
import { CLIENT, ERROR, SERVER, startGatewayUnderTest, type GatewayUnderTest } from './gateway-under-test.js';
import { ensureBinary, readTrace, startJaeger, type Jaeger, type StoredSpan } from './otel-binaries.js';

const GATEWAY_KEY = 'sg-e2e-gateway-key-0123456789';
const PROVIDER_KEY = 'AIzaE2eProviderKey0123456789abcdef';

const binary = await ensureBinary('jaeger');

describe.skipIf(binary === null)('traces in a real Jaeger', () => {
  let jaeger: Jaeger;
  let under: GatewayUnderTest;
  let emulator: Emulator;
  let gateway: RunningGateway;
  let telemetry: SidegateTelemetry;
  let client: OpenAI;

  beforeAll(async () => {
    jaeger = await startJaeger(binary as string);
    under = await startGatewayUnderTest({
      otlpEndpoint: jaeger.otlpHttp,
      serviceName: 'sidegate-e2e',
      gatewayKey: GATEWAY_KEY,
      providerKey: PROVIDER_KEY,
      env: { OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=e2e' },
    });
    ({ emulator, gateway, telemetry, client } = under);
  });

  afterAll(async () => {
    await under?.close();
    await jaeger?.close();
  });

  async function traceOf(traceId: string, min: number): Promise<{ server: StoredSpan; clients: StoredSpan[]; all: StoredSpan[] }> {
    await telemetry.forceFlush();
    const all = await readTrace(jaeger.query, traceId, min);
    const servers = all.filter((s) => s.kind === SERVER);
    expect(servers).toHaveLength(1);
    const server = servers[0] as StoredSpan;
    const clients = all.filter((s) => s.kind === CLIENT && s.parentSpanId === server.spanId);
    return { server, clients, all };
  }

  it('files the gateway span under the caller’s traceparent, with GenAI attributes and usage', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const callerSpan = '00f067aa0ba902b7';
    const { data, response } = await client.chat.completions
      .create(
        { model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hello jaeger' }], temperature: 0.3, max_tokens: 64 },
        { headers: { traceparent: `00-${traceId}-${callerSpan}-01` } },
      )
      .withResponse();
    expect(data.choices[0]?.message.content).toBeTruthy();
    expect(response.headers.get('x-gateway-trace-id')).toStrictEqual(traceId);

    const { server, clients } = await traceOf(traceId, 2);
    expect(server.parentSpanId).toStrictEqual(callerSpan);
    expect(response.headers.get('traceparent')).toStrictEqual(`00-${traceId}-${server.spanId}-01`);
    expect(server.name).toStrictEqual('chat gemini-2.5-flash');
    expect(server.serviceName).toStrictEqual('sidegate-e2e');
    expect(server.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'gemini-2.5-flash',
      'gen_ai.request.temperature': 0.3,
      'gen_ai.request.max_tokens': 64,
      'http.response.status_code': 200,
      'gateway.attempts': 1,
    });
    expect(server.attributes['gen_ai.usage.input_tokens']).toBeUndefined();

    expect(clients).toHaveLength(1);
    const attempt = clients[0] as StoredSpan;
    expect(attempt.name).toStrictEqual('generate_content gemini-2.5-flash');
    expect(attempt.status.code ?? 0).not.toStrictEqual(ERROR);
    expect(attempt.attributes).toMatchObject({
      'gen_ai.operation.name': 'generate_content',
      'gen_ai.provider.name': 'gcp.gemini',
      'gen_ai.request.model': 'gemini-2.5-flash',
      'server.address': '127.0.0.1',
      'server.port': emulator.port,
      'http.response.status_code': 200,
      'gateway.attempt.number': 1,
      'gen_ai.usage.input_tokens': data.usage?.prompt_tokens,
      'gen_ai.usage.output_tokens': data.usage?.completion_tokens,
    });
    expect(typeof attempt.attributes['gateway.cost.usd']).toStrictEqual('number');
    expect(attempt.attributes['gen_ai.response.finish_reasons']).toStrictEqual(['stop']);

    // The attempt's context went upstream as traceparent, and baggage never did.
    const upstream = emulator.requests.at(-1);
    expect(upstream?.headers.traceparent).toStrictEqual(`00-${traceId}-${attempt.spanId}-01`);
  });

  it('uses x-gateway-trace-id (mapped when not hex) and keeps the original', async () => {
    const clientId = `checkout-run-${Date.now()}`;
    const { response } = await client.chat.completions
      .create({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hi' }] }, { headers: { 'x-gateway-trace-id': clientId } })
      .withResponse();
    expect(response.headers.get('x-gateway-trace-id')).toStrictEqual(clientId);
    const { server } = await traceOf(mapTraceId(clientId), 2);
    expect(server.attributes['gateway.trace_id']).toStrictEqual(clientId);
    expect(server.parentSpanId).toStrictEqual('');
  });

  it('records metadata and URL-decoded baggage as gateway.metadata.* attributes', async () => {
    const traceId = mapTraceId(`meta-${Date.now()}`);
    await client.chat.completions.create(
      { model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hi' }] },
      {
        headers: {
          'x-gateway-trace-id': traceId,
          'x-gateway-span-name': 'summarise ticket',
          'x-gateway-metadata': JSON.stringify({ user: 'u-42', env: 'prod' }),
          baggage: 'team=search%20infra,env=dev',
        },
      },
    );
    const { server } = await traceOf(traceId, 2);
    expect(server.name).toStrictEqual('summarise ticket');
    expect(server.attributes).toMatchObject({
      'gateway.metadata.user': 'u-42',
      'gateway.metadata.env': 'prod',
      'gateway.metadata.team': 'search infra',
    });
    expect(emulator.requests.at(-1)?.headers.baggage).toBeUndefined();
  });

  it('marks a failed attempt ERROR with error.type, and the 5xx request span ERROR', async () => {
    const traceId = mapTraceId(`fail-${Date.now()}`);
    emulator.enqueue({ status: 503, body: googleError(503, 'The model is overloaded. Please try again later.') });
    const err = await client.chat.completions
      .create({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hi' }] }, { headers: { 'x-gateway-trace-id': traceId } })
      .then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toStrictEqual(503);

    const { server, clients } = await traceOf(traceId, 2);
    expect(server.status.code).toStrictEqual(ERROR);
    expect(server.attributes['http.response.status_code']).toStrictEqual(503);
    expect(typeof server.attributes['error.type']).toStrictEqual('string');
    const failed = clients.filter((c) => c.status.code === ERROR);
    expect(failed.length).toBeGreaterThanOrEqual(1);
    expect(failed[0]?.attributes).toMatchObject({ 'http.response.status_code': 503, 'error.type': '503' });
  });

  it('traces a streamed answer with time to first chunk', async () => {
    const traceId = mapTraceId(`stream-${Date.now()}`);
    const stream = await client.chat.completions.create(
      { model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'stream please' }], stream: true, stream_options: { include_usage: true } },
      { headers: { 'x-gateway-trace-id': traceId } },
    );
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text.length).toBeGreaterThan(0);
    const { server, clients } = await traceOf(traceId, 2);
    expect(server.attributes['gen_ai.request.stream']).toStrictEqual(true);
    const attempt = clients[0] as StoredSpan;
    expect(typeof attempt.attributes['gen_ai.response.time_to_first_chunk']).toStrictEqual('number');
    expect(typeof attempt.attributes['gen_ai.usage.output_tokens']).toStrictEqual('number');
  });

  it('never stores the gateway key or the provider key anywhere in a trace', async () => {
    const traceId = mapTraceId(`secrets-${Date.now()}`);
    await client.chat.completions.create(
      { model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hi' }] },
      { headers: { 'x-gateway-trace-id': traceId } },
    );
    await telemetry.forceFlush();
    await readTrace(jaeger.query, traceId, 2);
    for (const path of [`/api/v3/traces/${traceId}`, `/api/traces/${traceId}`]) {
      const body = await (await fetch(`${jaeger.query}${path}`)).text();
      expect(body).toContain(traceId.slice(0, 16));
      expect(body).not.toContain(GATEWAY_KEY);
      expect(body).not.toContain(PROVIDER_KEY);
    }
  });
});

describe.skipIf(binary === null)('OTLP protocols into a real Jaeger', () => {
  let jaeger: Jaeger;
  beforeAll(async () => {
    jaeger = await startJaeger(binary as string);
  });
  afterAll(async () => {
    await jaeger?.close();
  });

  it.each([
    { protocol: 'grpc', endpoint: () => jaeger.otlpGrpc },
    { protocol: 'http/json', endpoint: () => jaeger.otlpHttp },
    { protocol: 'http/protobuf', endpoint: () => jaeger.otlpHttp },
  ])('exports spans over $protocol', async ({ protocol, endpoint }) => {
    const telemetry = createTelemetry({
      env: {
        OTEL_SERVICE_NAME: `sidegate-${protocol.replace('/', '-')}`,
        OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
        OTEL_EXPORTER_OTLP_ENDPOINT: endpoint(),
        OTEL_METRICS_EXPORTER: 'none',
        SIDEGATE_OTLP_WORKER: 'true',
      },
      exportWorkerUrl: E2E_EXPORT_WORKER_URL,
    });
    const traceId = mapTraceId(`proto-${protocol}-${Date.now()}`);
    const span = telemetry.startRequest(chatStart(traceId));
    span.end({ status: 200, attempts: 0 });
    await telemetry.shutdown(10_000);
    const [stored] = await readTrace(jaeger.query, traceId, 1);
    expect(stored?.serviceName).toStrictEqual(`sidegate-${protocol.replace('/', '-')}`);
    expect(stored?.name).toStrictEqual('chat gemini-2.5-flash');
  });

  it('counts spans it could not deliver to a dead collector, without failing the request', async () => {
    const lines: string[] = [];
    const telemetry = createTelemetry({
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_EXPORTER_OTLP_TIMEOUT: '500', OTEL_METRICS_EXPORTER: 'none', SIDEGATE_OTLP_WORKER: 'true' },
      logger: (line) => lines.push(line),
      exportWorkerUrl: E2E_EXPORT_WORKER_URL,
    });
    const span = telemetry.startRequest(chatStart(mapTraceId(`dead-${Date.now()}`)));
    span.end({ status: 200, attempts: 0 });
    await telemetry.forceFlush();
    expect(telemetry.droppedSpans()).toStrictEqual(1);
    expect(lines.join('\n')).toContain('dropped 1 span');
    expect(await telemetry.renderMetrics?.()).toMatch(/sidegate_telemetry_spans_dropped_total\{[^}]*reason="export_failed"[^}]*\} 1/);
    await telemetry.shutdown(1000);
  });
});

/** A request span start as the server makes it: the ids come from the request context. */
function chatStart(traceId: string): RequestStart {
  const chat = { model: 'gemini-2.5-flash', messages: [{ role: 'user' as const, content: 'x' }] };
  return {
    context: { metadata: {}, trace: { traceId, spanId: mapSpanId(traceId), traceFlags: 1 } },
    operation: 'chat',
    model: chat.model,
    route: '/v1/chat/completions',
    chat,
  };
}
