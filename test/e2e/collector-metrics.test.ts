/**
 * The GenAI metrics as a real OpenTelemetry Collector receives them over OTLP/HTTP protobuf (the
 * default protocol), written out by its file exporter: the per-request histograms sidegate
 * aggregates itself (src/telemetry/histogram-producer.ts) arrive through the SDK's reader,
 * with semconv names, buckets, counts and attributes, cumulative and delta.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { googleError } from '../../src/emulator/index.js';
import { startGatewayUnderTest, type GatewayUnderTest } from './gateway-under-test.js';
import { ensureBinary, freePort, runWithConfig, type RunningProcess } from './otel-binaries.js';

const GATEWAY_KEY = 'sg-e2e-metrics-gateway-key-0123456';
const PROVIDER_KEY = 'AIzaMetricsProviderKey0123456789abcd';

const collectorBinary = await ensureBinary('collector');

/** OTLP/JSON as the file exporter writes it: one ExportMetricsServiceRequest per line. */
interface OtlpAttribute {
  key: string;
  value: { stringValue?: string; intValue?: string; boolValue?: boolean };
}
interface OtlpHistogramPoint {
  attributes?: OtlpAttribute[];
  startTimeUnixNano: string;
  timeUnixNano: string;
  count: string;
  sum?: number;
  min?: number;
  max?: number;
  bucketCounts: string[];
  explicitBounds: number[];
}
interface OtlpMetric {
  name: string;
  unit?: string;
  histogram?: { dataPoints: OtlpHistogramPoint[]; aggregationTemporality: number };
  sum?: { dataPoints: Array<{ attributes?: OtlpAttribute[]; asInt?: string }> };
}
interface Export {
  resourceMetrics: Array<{ resource: { attributes: OtlpAttribute[] }; scopeMetrics: Array<{ scope: { name: string }; metrics: OtlpMetric[] }> }>;
}

const CUMULATIVE = 2; // AggregationTemporality in OTLP
const DELTA = 1;

function attributesOf(point: { attributes?: OtlpAttribute[] }): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const { key, value } of point.attributes ?? []) out[key] = value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : value.boolValue!);
  return out;
}

async function startCollector(file: string): Promise<{ process: RunningProcess; endpoint: string }> {
  const [http, health] = await Promise.all([freePort(), freePort()]);
  const yaml = `
receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:${http}
exporters:
  file:
    path: ${file}
    flush_interval: 50ms
extensions:
  health_check:
    endpoint: 127.0.0.1:${health}
service:
  extensions: [health_check]
  telemetry:
    metrics:
      level: none
  pipelines:
    metrics:
      receivers: [otlp]
      exporters: [file]
`;
  const process = await runWithConfig(collectorBinary as string, 'otelcol-metrics', yaml, `http://127.0.0.1:${health}/`);
  return { process, endpoint: `http://127.0.0.1:${http}` };
}

interface Written {
  /** Every metric by name, the latest export's last. */
  byName: Map<string, OtlpMetric[]>;
  /** The `service.name` of each resource and the name of each scope the metrics came under. */
  resources: Set<string>;
  scopes: Set<string>;
}

/** What the collector has written so far, once `want` holds for it. */
async function readExports(file: string, want: (metrics: Map<string, OtlpMetric[]>) => boolean): Promise<Written> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const byName = new Map<string, OtlpMetric[]>();
    const resources = new Set<string>();
    const scopes = new Set<string>();
    if (existsSync(file)) {
      for (const line of readFileSync(file, 'utf8').split('\n').filter(Boolean)) {
        const request = JSON.parse(line) as Export;
        for (const rm of request.resourceMetrics) {
          resources.add(String(attributesOf(rm.resource)['service.name']));
          for (const sm of rm.scopeMetrics) {
            scopes.add(sm.scope.name);
            for (const m of sm.metrics) byName.set(m.name, [...(byName.get(m.name) ?? []), m]);
          }
        }
      }
    }
    if (want(byName)) return { byName, resources, scopes };
    if (Date.now() > deadline) throw new Error(`the collector wrote ${[...byName.keys()].join(', ') || 'nothing'} of what was expected`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.skipIf(collectorBinary === null)('GenAI metrics through a real collector', () => {
  for (const temporality of ['cumulative', 'delta'] as const) {
    describe(temporality, () => {
      let collector: RunningProcess;
      let under: GatewayUnderTest;
      let file: string;

      beforeAll(async () => {
        file = join(mkdtempSync(join(tmpdir(), 'sidegate-metrics-')), 'metrics.json');
        const started = await startCollector(file);
        collector = started.process;
        // The SDK's OTLP metric exporter reads its temporality from the process environment, as
        // `sidegate serve` runs it; it is read once, when the exporter is built.
        const saved = process.env.OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE;
        process.env.OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE = temporality;
        under = await startGatewayUnderTest({
          otlpEndpoint: started.endpoint,
          serviceName: `sidegate-metrics-${temporality}`,
          gatewayKey: GATEWAY_KEY,
          providerKey: PROVIDER_KEY,
          env: {
            OTEL_METRICS_EXPORTER: 'otlp',
            OTEL_TRACES_EXPORTER: 'none',
            OTEL_METRIC_EXPORT_INTERVAL: '200',
          },
        }).finally(() => {
          if (saved === undefined) delete process.env.OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE;
          else process.env.OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE = saved;
        });
      });

      afterAll(async () => {
        await under?.close();
        await collector?.stop();
      });

      it("receives the histograms with their buckets, counts and attributes, under the gateway's resource", async () => {
        const { client, emulator } = under;
        const ask = () => client.chat.completions.create({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hello' }] });
        const ok = (p: OtlpHistogramPoint) => attributesOf(p)['http.response.status_code'] === 200;
        const total = (metrics: OtlpMetric[] | undefined, match: (p: OtlpHistogramPoint) => boolean) => {
          const points = (metrics ?? []).flatMap((m) => m.histogram!.dataPoints.filter(match));
          // cumulative: the latest point is the total; delta: the points add up to it
          return temporality === 'cumulative' ? Number(points.at(-1)?.count ?? 0) : points.reduce((n, p) => n + Number(p.count), 0);
        };
        const requestsSeen = (m: Map<string, OtlpMetric[]>) => total(m.get('gen_ai.server.request.duration'), ok);

        // Two calls; once the collector has them, one more and a failure, in a later export.
        await ask();
        await ask();
        await readExports(file, (m) => requestsSeen(m) >= 2);
        await ask();
        emulator.enqueue({ status: 400, body: googleError(400, 'Invalid argument.') });
        await ask().catch(() => undefined);
        await readExports(file, (m) => requestsSeen(m) >= 3);
        // A few more exports with nothing new: a delta reader sends no point, a cumulative one the same total.
        await new Promise((r) => setTimeout(r, 800));
        const { byName, resources, scopes } = await readExports(file, () => true);

        const server = byName.get('gen_ai.server.request.duration')!;
        expect(server[0]!.unit).toBe('s');
        expect(server[0]!.histogram!.aggregationTemporality).toBe(temporality === 'cumulative' ? CUMULATIVE : DELTA);
        const point = server.flatMap((m) => m.histogram!.dataPoints).find(ok)!;
        expect(attributesOf(point)).toStrictEqual({
          'gen_ai.operation.name': 'chat',
          'gen_ai.request.model': 'gemini-2.5-flash',
          'http.response.status_code': 200,
          'gen_ai.response.model': 'gemini-2.5-flash',
        });
        expect(point.explicitBounds).toStrictEqual([0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92]);
        expect(point.bucketCounts.reduce((n, c) => n + Number(c), 0)).toBe(Number(point.count));
        expect(point.min).toBeGreaterThan(0);
        expect(point.max).toBeGreaterThanOrEqual(point.min!);
        expect(BigInt(point.timeUnixNano)).toBeGreaterThan(BigInt(point.startTimeUnixNano));
        expect(total(server, ok)).toBe(3);
        expect(total(server, (p) => attributesOf(p)['http.response.status_code'] === 400)).toBe(1);

        const tokens = byName.get('gen_ai.client.token.usage')!;
        const input = (p: OtlpHistogramPoint) => attributesOf(p)['gen_ai.token.type'] === 'input';
        expect(total(tokens, input)).toBe(3);
        const tokenPoint = tokens.flatMap((m) => m.histogram!.dataPoints).find(input)!;
        expect(attributesOf(tokenPoint)).toMatchObject({ 'gen_ai.provider.name': 'gcp.gemini', 'server.address': '127.0.0.1' });
        expect(tokenPoint.explicitBounds.slice(0, 3)).toStrictEqual([1, 4, 16]);

        const attempts = byName.get('gen_ai.client.operation.duration')!;
        expect(total(attempts, (p) => attributesOf(p)['error.type'] !== undefined)).toBe(1);
        expect(total(attempts, (p) => attributesOf(p)['error.type'] === undefined)).toBe(3);
        expect(byName.has('sidegate.upstream.queue.duration')).toBe(true);
        // Filed by the SDK's reader under the gateway's resource and its meter's scope.
        expect(resources).toStrictEqual(new Set([`sidegate-metrics-${temporality}`]));
        expect(scopes).toStrictEqual(new Set(['sidegate']));
      });
    });
  }
});
