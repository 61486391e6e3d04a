import type { Attributes } from '@opentelemetry/api';
import { PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import {
  AggregationTemporality,
  DataPointType,
  MeterProvider,
  MetricReader,
  type HistogramMetricData,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import { describe, expect, it } from 'vitest';
import { GatewayHistogram, HistogramProducer, SERIES_LIMIT, bucketOf } from './histogram-producer.js';

const boundaries = [0.01, 0.02, 0.04, 0.08, 0.16];
const scope = { name: 'sidegate', version: '1.2.3' };

class Reader extends MetricReader {
  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/** The SDK's own histogram and ours, each behind a real SDK reader of the given temporality. */
function pair(temporality: AggregationTemporality) {
  const selector = () => temporality;
  const sdkReader = new Reader({ aggregationTemporalitySelector: selector });
  const sdk = new MeterProvider({ readers: [sdkReader] })
    .getMeter('sidegate', '1.2.3')
    .createHistogram('gen_ai.client.operation.duration', { unit: 's', description: 'd', advice: { explicitBucketBoundaries: boundaries } });
  const producer = new HistogramProducer(scope, temporality);
  const oursReader = new Reader({ aggregationTemporalitySelector: selector, metricProducers: [producer] });
  new MeterProvider({ readers: [oursReader] });
  const ours = new GatewayHistogram([producer.stream({ name: 'gen_ai.client.operation.duration', unit: 's', description: 'd', boundaries })]);
  return {
    record(value: number, attributes: Attributes) {
      sdk.record(value, attributes);
      ours.record(value, attributes);
    },
    async collect() {
      const [a, b] = await Promise.all([sdkReader.collect(), oursReader.collect()]);
      return { sdk: a.resourceMetrics, ours: b.resourceMetrics };
    },
  };
}

/** What an exporter sends of a histogram, times left out (each side reads its own clock). */
function pointsOf(metrics: ResourceMetrics) {
  const found = metrics.scopeMetrics.flatMap((s) => s.metrics.map((m) => ({ scope: s.scope, metric: m as HistogramMetricData })));
  return found.map(({ scope, metric }) => ({
    scope: { name: scope.name, version: scope.version },
    name: metric.descriptor.name,
    unit: metric.descriptor.unit,
    description: metric.descriptor.description,
    valueType: metric.descriptor.valueType,
    temporality: metric.aggregationTemporality,
    type: metric.dataPointType,
    points: metric.dataPoints.map((p) => ({ attributes: p.attributes, value: p.value })),
  }));
}

const a = { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gemini-2.5-flash', 'server.port': 443 };
const b = { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gemini-2.5-pro', 'error.type': '500' };

describe('HistogramProducer, read by the SDK, against the SDK histogram', () => {
  it.each([
    { name: 'cumulative', temporality: AggregationTemporality.CUMULATIVE },
    { name: 'delta', temporality: AggregationTemporality.DELTA },
  ])('$name: the same series, buckets, count, sum, min and max, collection after collection', async ({ temporality }) => {
    const h = pair(temporality);
    // On a boundary, between, below the first, past the last, NaN, the same set in another order.
    for (const value of [0.01, 0.015, 0, 0.16, 3, Number.NaN]) h.record(value, a);
    h.record(0.04, { 'server.port': 443, 'gen_ai.request.model': 'gemini-2.5-flash', 'gen_ai.operation.name': 'chat' });
    h.record(0.05, b);
    const first = await h.collect();
    expect(pointsOf(first.ours)).toStrictEqual(pointsOf(first.sdk));
    expect(pointsOf(first.ours)[0]!.points).toHaveLength(2);

    h.record(0.5, b); // only b since: a delta reader sends b alone, a cumulative one both
    const second = await h.collect();
    expect(pointsOf(second.ours)).toStrictEqual(pointsOf(second.sdk));

    const third = await h.collect(); // nothing since
    expect(pointsOf(third.ours)).toStrictEqual(pointsOf(third.sdk));
  });

  it('starts a cumulative series at its first record and a delta point at the last collection', async () => {
    let now = 1_000_000;
    const cumulative = new HistogramProducer(scope, AggregationTemporality.CUMULATIVE, () => now);
    const delta = new HistogramProducer(scope, AggregationTemporality.DELTA, () => now);
    const descriptor = { name: 'x', unit: 's', description: 'd', boundaries };
    const histogram = new GatewayHistogram([cumulative.stream(descriptor), delta.stream(descriptor)]);
    now += 1000;
    histogram.record(0.1, a);
    now += 1000;
    await Promise.all([cumulative.collect(), delta.collect()]);
    now += 1000;
    histogram.record(0.1, a);
    now += 1000;
    const [c, d] = await Promise.all([cumulative.collect(), delta.collect()]);
    const times = (r: typeof c) => {
      const p = (r.resourceMetrics.scopeMetrics[0]!.metrics[0] as HistogramMetricData).dataPoints[0]!;
      return [p.startTime, p.endTime];
    };
    expect(times(c)).toStrictEqual([[1001, 0], [1004, 0]]);
    expect(times(d)).toStrictEqual([[1002, 0], [1004, 0]]);
    expect((c.resourceMetrics.scopeMetrics[0]!.metrics[0] as HistogramMetricData).dataPoints[0]!.value.count).toBe(2);
    expect((d.resourceMetrics.scopeMetrics[0]!.metrics[0] as HistogramMetricData).dataPoints[0]!.value.count).toBe(1);
  });

  it("keeps the SDK's cardinality limit: 1,999 series, then one overflow series", async () => {
    const producer = new HistogramProducer(scope, AggregationTemporality.CUMULATIVE);
    const histogram = new GatewayHistogram([producer.stream({ name: 'x', unit: 's', description: 'd', boundaries })]);
    for (let i = 0; i < SERIES_LIMIT + 500; i++) histogram.record(0.01, { 'gen_ai.request.model': `m${i}` });
    histogram.record(0.01, { 'gen_ai.request.model': 'm0' }); // a series kept before the limit stays its own
    const { resourceMetrics } = await producer.collect();
    const points = (resourceMetrics.scopeMetrics[0]!.metrics[0] as HistogramMetricData).dataPoints;
    expect(points).toHaveLength(SERIES_LIMIT);
    expect(points.find((p) => p.attributes['gen_ai.request.model'] === 'm0')!.value.count).toBe(2);
    expect(points.find((p) => p.attributes['otel.metric.overflow'] === true)!.value.count).toBe(501);
  });

  it('tells a number from its string, and keeps the attributes as first recorded', async () => {
    const producer = new HistogramProducer(scope, AggregationTemporality.CUMULATIVE);
    const histogram = new GatewayHistogram([producer.stream({ name: 'x', unit: 's', description: 'd', boundaries })]);
    const attributes: Attributes = { 'http.response.status_code': 200 };
    histogram.record(0.01, attributes);
    histogram.record(0.01, { 'http.response.status_code': '200' });
    attributes['http.response.status_code'] = 500; // a caller reusing its object changes nothing recorded
    const { resourceMetrics } = await producer.collect();
    const points = (resourceMetrics.scopeMetrics[0]!.metrics[0] as HistogramMetricData).dataPoints;
    expect(points.map((p) => p.attributes)).toStrictEqual([{ 'http.response.status_code': 200 }, { 'http.response.status_code': '200' }]);
    expect(resourceMetrics.scopeMetrics[0]!.metrics[0]!.dataPointType).toBe(DataPointType.HISTOGRAM);
  });

  it('renders the same Prometheus text as the SDK histogram', async () => {
    const h = pair(AggregationTemporality.CUMULATIVE);
    for (const value of [0.01, 0.03, 7]) h.record(value, a);
    const { sdk, ours } = await h.collect();
    const serializer = new PrometheusSerializer();
    const text = serializer.serialize(ours);
    expect(text).toContain('gen_ai_client_operation_duration');
    expect(text).toBe(serializer.serialize(sdk));
  });
});

describe('bucketOf', () => {
  it.each([
    [-1, 0],
    [0.01, 0],
    [0.0100001, 1],
    [0.16, 4],
    [0.17, 5],
    [Number.POSITIVE_INFINITY, 5],
  ])('%s falls in bucket %i', (value, bucket) => {
    expect(bucketOf(boundaries, value)).toBe(bucket);
  });
});
