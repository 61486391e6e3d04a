// The floor with the real OpenTelemetry SDK called the plainest way: what "tracing on" costs any
// Node.js gateway, before any of sidegate's own work. `bench/floor.mjs` loads it when
// FLOOR_OTLP_ENDPOINT is set (`sdkfloor` in run.mjs, compare.mjs and profile.mjs, the "floor+SDK" column) and, per
// request, records what sidegate records for a plain answer: a SERVER span for the request and a
// CLIENT span for the one upstream attempt, with the GenAI attributes, the W3C context taken from
// the caller and handed upstream, and the three GenAI metric records (operation duration, input
// and output token usage). The SDK's defaults throughout: a BatchSpanProcessor (OTEL_BSP_* apply),
// the OTLP/HTTP protobuf trace exporter as exporter-trace-otlp-proto builds it (the SDK's export
// delegate and ProtobufTraceSerializer), a PeriodicExportingMetricReader with the protobuf metric
// exporter. Nothing sliced, cached, deferred or pooled: where sidegate's figures stand against this
// line is what its own changes to "how and when we call the SDK" are worth, and where this line
// stands against the floor is what the SDK itself costs.
import { createRequire } from 'node:module';

const load = createRequire(import.meta.url);
const api = load('@opentelemetry/api');
const { W3CTraceContextPropagator } = load('@opentelemetry/core');
const { resourceFromAttributes } = load('@opentelemetry/resources');
const { BasicTracerProvider, BatchSpanProcessor } = load('@opentelemetry/sdk-trace-base');
const { MeterProvider, PeriodicExportingMetricReader } = load('@opentelemetry/sdk-metrics');
const { OTLPExporterBase } = load('@opentelemetry/otlp-exporter-base');
const { convertLegacyHttpOptions, createOtlpHttpExportDelegate } = load('@opentelemetry/otlp-exporter-base/node-http');
const { ProtobufTraceSerializer, TraceExporterMetricsHelper } = load('@opentelemetry/otlp-transformer');
const { OTLPMetricExporter } = load('@opentelemetry/exporter-metrics-otlp-proto');

/** exporter-trace-otlp-proto's OTLPTraceExporter, built from the same parts it is built from. */
class OTLPTraceExporter extends OTLPExporterBase {
  constructor(config) {
    super(
      createOtlpHttpExportDelegate(
        convertLegacyHttpOptions(config, 'TRACES', 'v1/traces', { 'Content-Type': 'application/x-protobuf' }),
        ProtobufTraceSerializer,
        'otlp_http_span_exporter',
        TraceExporterMetricsHelper,
        undefined,
      ),
    );
  }
}

/** `endpoint`: the OTLP/HTTP base URL; `upstream`: the Gemini base URL, for server.address/port. */
export function startFloorTelemetry(endpoint, upstream) {
  // A dropped span or a failed export would make this line cheaper than it is: say so.
  api.diag.setLogger(new api.DiagConsoleLogger(), api.DiagLogLevel.WARN);
  const resource = resourceFromAttributes({ 'service.name': 'bench-floor' });
  const tracerProvider = new BasicTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: `${endpoint}/v1/traces` }))],
  });
  const meterProvider = new MeterProvider({
    resource,
    readers: [new PeriodicExportingMetricReader({ exporter: new OTLPMetricExporter({ url: `${endpoint}/v1/metrics` }) })],
  });
  const tracer = tracerProvider.getTracer('bench-floor');
  const meter = meterProvider.getMeter('bench-floor');
  const duration = meter.createHistogram('gen_ai.client.operation.duration', { unit: 's' });
  const tokens = meter.createHistogram('gen_ai.client.token.usage', { unit: '{token}' });
  const propagator = new W3CTraceContextPropagator();
  const getter = api.defaultTextMapGetter;
  const setter = api.defaultTextMapSetter;
  const { hostname, port } = new URL(upstream);

  // FLOOR_SPAN_CONTENT=sidegate (`sdkfull` in compare.mjs): the same two spans carrying what
  // sidegate's carry for a plain answer, attribute for attribute (docs/tracing.md: the attempt's
  // number, target, queue time, request settings, response id, finish reasons and cost; the
  // request's attempts and target), still through the SDK called the plainest way: what the
  // plain SDK costs for sidegate's span content, apart from how sidegate calls it.
  const full = process.env.FLOOR_SPAN_CONTENT === 'sidegate';

  return {
    /** Before the upstream call: both spans started, traceparent added to `upstreamHeaders`. */
    start(incomingHeaders, model, upstreamHeaders, maxTokens) {
      const started = performance.now();
      const parent = propagator.extract(api.ROOT_CONTEXT, incomingHeaders, getter);
      const request = tracer.startSpan(`chat ${model}`, { kind: api.SpanKind.SERVER }, parent);
      request.setAttributes({ 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': model, 'http.request.method': 'POST', 'http.route': '/v1/chat/completions' });
      if (full) request.setAttributes({ 'gen_ai.request.max_tokens': maxTokens, 'gen_ai.output.type': 'text' });
      const requestContext = api.trace.setSpan(parent, request);
      const attempt = tracer.startSpan(full ? `generate_content ${model}` : `chat ${model}`, { kind: api.SpanKind.CLIENT }, requestContext);
      attempt.setAttributes({
        'gen_ai.operation.name': full ? 'generate_content' : 'chat',
        'gen_ai.provider.name': 'gcp.gemini',
        'gen_ai.request.model': model,
        'server.address': hostname,
        'server.port': Number(port),
      });
      if (full) {
        attempt.setAttributes({
          'gateway.attempt.number': 1,
          'gateway.target.index': 'default',
          'gen_ai.request.max_tokens': maxTokens,
          'gen_ai.output.type': 'text',
          'gateway.upstream.queue_duration': (performance.now() - started) / 1000,
        });
      }
      propagator.inject(api.trace.setSpan(requestContext, attempt), upstreamHeaders, setter);
      return { started, model, request, attempt };
    },
    /** After the answer's last byte: response attributes, both spans ended, the metric records. */
    end({ started, model, request, attempt }, status, responseModel, usage, answer = {}) {
      const input = usage?.promptTokenCount ?? 0;
      const output = (usage?.candidatesTokenCount ?? 0) + (usage?.thoughtsTokenCount ?? 0);
      attempt.setAttributes({
        'http.response.status_code': status,
        'gen_ai.response.model': responseModel ?? model,
        'gen_ai.usage.input_tokens': input,
        'gen_ai.usage.output_tokens': output,
      });
      if (full) {
        attempt.setAttributes({
          'gen_ai.response.id': answer.responseId,
          'gen_ai.response.finish_reasons': [answer.finishReason],
          'gateway.cost.usd': input * 3e-7 + output * 2.5e-6,
        });
      }
      attempt.end();
      if (full) {
        request.setAttributes({
          'http.response.status_code': status,
          'gateway.attempts': 1,
          'gateway.target.index': 'default',
          'gen_ai.response.id': answer.responseId,
          'gen_ai.response.model': responseModel ?? model,
          'gen_ai.response.finish_reasons': [answer.finishReason],
        });
      } else {
        request.setAttributes({ 'http.response.status_code': status, 'gen_ai.usage.input_tokens': input, 'gen_ai.usage.output_tokens': output });
      }
      request.end();
      const attributes = { 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'gcp.gemini', 'gen_ai.request.model': model, 'gen_ai.response.model': responseModel ?? model };
      duration.record((performance.now() - started) / 1000, attributes);
      tokens.record(input, { ...attributes, 'gen_ai.token.type': 'input' });
      tokens.record(output, { ...attributes, 'gen_ai.token.type': 'output' });
    },
  };
}
