/**
 * Sidegate's per-request histograms, aggregated here and read by the SDK's own metric readers
 * through `MetricProducer`, the reader option made for metrics kept outside the SDK's instruments.
 *
 * Why not the SDK's `Histogram`: every record hashes its attribute set, once per reader
 * (`hashAttributes`: `Object.keys`, `sort`, `JSON.stringify`), and the SDK takes no precomputed
 * hash. With five records per request that was about 10 KB of garbage per request, an eighth of
 * all a request allocates, and the largest single item of the telemetry's CPU (issue 25, eighth
 * round, in docs/performance.md). Here a series is found by walking its attributes in the order they were
 * set (sidegate's callers set each kind in one order) through nested maps, which allocates
 * nothing; a set seen for the first time, in any order, is matched to its series by the same
 * sorted form the SDK hashes, once.
 *
 * What the readers get is what the SDK's explicit-bucket histogram makes, so the collector and
 * `/metrics` see no difference: the same buckets (a value on a boundary counts in the bucket it
 * closes), count, sum, min and max, NaN ignored, the reader's temporality (cumulative: a series
 * starts at its first record and is kept; delta: each collection starts where the last ended and
 * only series recorded since are sent) and the SDK's cardinality limit (1,999 series per histogram,
 * then one series `otel.metric.overflow=true`). Encoding and export stay the SDK's.
 */
import type { Attributes, HrTime } from '@opentelemetry/api';
import { ValueType } from '@opentelemetry/api';
import { millisToHrTime, type InstrumentationScope } from '@opentelemetry/core';
import { emptyResource } from '@opentelemetry/resources';
import {
  AggregationTemporality,
  DataPointType,
  type CollectionResult,
  type DataPoint,
  type Histogram,
  type HistogramMetricData,
  type MetricProducer,
} from '@opentelemetry/sdk-metrics';

export interface HistogramDescriptor {
  name: string;
  unit: string;
  description: string;
  /** Explicit bucket boundaries, ascending. */
  boundaries: readonly number[];
}

/** The SDK's default: `aggregationCardinalityLimit` 2,000, one of them the overflow series. */
export const SERIES_LIMIT = 2000;
const OVERFLOW_ATTRIBUTES: Attributes = Object.freeze({ 'otel.metric.overflow': true });
const OVERFLOW_KEY = '\u0000overflow'; // no sorted form is this: those begin with '['

interface Series {
  attributes: Attributes;
  startMs: number;
  count: number;
  sum: number;
  min: number;
  max: number;
  counts: number[];
}

/** A step of the path from an attribute set, in the order set, to its series. */
interface PathNode {
  series?: Series;
  /** By attribute name, then by value. */
  next?: Map<string, Map<unknown, PathNode>>;
}

/** One histogram's series as one reader sees them. */
class HistogramStream {
  /** The path of each attribute set seen, name by name in the order set: no string built, nothing allocated. */
  #paths: PathNode = {};
  /** Series by the SDK's sorted form of their attributes: one entry per series. */
  #bySortedForm = new Map<string, Series>();

  constructor(
    readonly descriptor: HistogramDescriptor,
    private readonly now: () => number,
  ) {}

  record(value: number, attributes: Attributes): void {
    if (Number.isNaN(value)) return;
    const series = this.#find(attributes) ?? this.#add(attributes);
    series.count += 1;
    series.sum += value;
    if (value < series.min) series.min = value;
    if (value > series.max) series.max = value;
    series.counts[bucketOf(this.descriptor.boundaries, value)]! += 1;
  }

  /** The series to send, and forgets them when `reset` (delta temporality). */
  take(reset: boolean): Series[] {
    const series = [...this.#bySortedForm.values()];
    if (reset) {
      this.#paths = {};
      this.#bySortedForm = new Map();
    }
    return series;
  }

  #find(attributes: Attributes): Series | undefined {
    let node: PathNode | undefined = this.#paths;
    for (const name in attributes) {
      const value = attributes[name];
      if (value === undefined) continue;
      node = node.next?.get(name)?.get(pathKey(value));
      if (node === undefined) return undefined;
    }
    return node.series;
  }

  #add(attributes: Attributes): Series {
    const sorted = sortedForm(attributes);
    let series = this.#bySortedForm.get(sorted);
    if (series === undefined) {
      // Past the limit nothing is kept per set, not even its path: the memory stays bounded.
      if (this.#bySortedForm.size >= SERIES_LIMIT - 1) return this.#overflow();
      series = this.#newSeries(Object.freeze({ ...attributes }));
      this.#bySortedForm.set(sorted, series);
    }
    let node = this.#paths;
    for (const name in attributes) {
      const value = attributes[name];
      if (value === undefined) continue;
      node.next ??= new Map();
      let byValue = node.next.get(name);
      if (byValue === undefined) node.next.set(name, (byValue = new Map()));
      const key = pathKey(value);
      let child = byValue.get(key);
      if (child === undefined) byValue.set(key, (child = {}));
      node = child;
    }
    node.series = series;
    return series;
  }

  #overflow(): Series {
    let series = this.#bySortedForm.get(OVERFLOW_KEY);
    if (series === undefined) {
      series = this.#newSeries(OVERFLOW_ATTRIBUTES);
      this.#bySortedForm.set(OVERFLOW_KEY, series);
    }
    return series;
  }

  #newSeries(attributes: Attributes): Series {
    const counts = new Array<number>(this.descriptor.boundaries.length + 1).fill(0);
    return { attributes, startMs: this.now(), count: 0, sum: 0, min: Infinity, max: -Infinity, counts };
  }
}

/** The histograms one metric reader collects, in that reader's temporality. */
export class HistogramProducer implements MetricProducer {
  readonly #streams: HistogramStream[] = [];
  #lastCollectedMs: number;

  constructor(
    private readonly scope: InstrumentationScope,
    private readonly temporality: AggregationTemporality,
    private readonly now: () => number = Date.now,
  ) {
    this.#lastCollectedMs = now();
  }

  /** Adds a histogram to what this reader collects; its records arrive through a `GatewayHistogram`. */
  stream(descriptor: HistogramDescriptor): HistogramStream {
    const stream = new HistogramStream(descriptor, this.now);
    this.#streams.push(stream);
    return stream;
  }

  collect(): Promise<CollectionResult> {
    const endMs = this.now();
    const delta = this.temporality === AggregationTemporality.DELTA;
    const endTime = millisToHrTime(endMs);
    const intervalStart = millisToHrTime(this.#lastCollectedMs);
    this.#lastCollectedMs = endMs;
    const metrics: HistogramMetricData[] = [];
    for (const stream of this.#streams) {
      const series = stream.take(delta);
      // The SDK leaves out a histogram with nothing recorded; so does this.
      if (series.length === 0) continue;
      const { name, unit, description, boundaries } = stream.descriptor;
      metrics.push({
        descriptor: { name, unit, description, valueType: ValueType.DOUBLE },
        aggregationTemporality: this.temporality,
        dataPointType: DataPointType.HISTOGRAM,
        dataPoints: series.map((s) => point(s, boundaries, delta ? intervalStart : millisToHrTime(s.startMs), endTime)),
      });
    }
    return Promise.resolve({
      // The reader files these under the SDK's resource; this one is not read.
      resourceMetrics: { resource: emptyResource(), scopeMetrics: metrics.length > 0 ? [{ scope: this.scope, metrics }] : [] },
      errors: [],
    });
  }
}

/**
 * What the request path records into: one histogram, recorded for every reader. Stands where an
 * SDK `Histogram` would; the attribute objects are the same, so callers build them as before.
 */
export class GatewayHistogram {
  constructor(private readonly streams: readonly HistogramStream[]) {}

  record(value: number, attributes: Attributes = {}): void {
    for (const stream of this.streams) stream.record(value, attributes);
  }
}

// A series exists only once a value was recorded into it, so it always has a min and a max.
function point(series: Series, boundaries: readonly number[], startTime: HrTime, endTime: HrTime): DataPoint<Histogram> {
  return {
    attributes: series.attributes,
    startTime,
    endTime,
    value: {
      buckets: { boundaries: [...boundaries], counts: [...series.counts] },
      count: series.count,
      sum: series.sum,
      min: series.min,
      max: series.max,
    },
  };
}

/** The SDK's `binarySearchUB`: the first boundary ≥ value, or past the last. */
export function bucketOf(boundaries: readonly number[], value: number): number {
  let lo = 0;
  let hi = boundaries.length - 1;
  let found = boundaries.length;
  while (hi >= lo) {
    const mid = (lo + hi) >>> 1;
    if (boundaries[mid]! < value) lo = mid + 1;
    else {
      found = mid;
      hi = mid - 1;
    }
  }
  return found;
}

// A Map tells 1 from '1' and true from 'true' by itself; an array value (none of sidegate's
// metric attributes is one) is keyed by its content, not its identity.
function pathKey(value: unknown): unknown {
  return typeof value === 'object' ? JSON.stringify(value) : value;
}

/** The SDK's `hashAttributes`: the form two sets with the same attributes in any order share. */
function sortedForm(attributes: Attributes): string {
  const names = Object.keys(attributes)
    .filter((name) => attributes[name] !== undefined)
    .sort();
  return JSON.stringify(names.map((name) => [name, attributes[name]]));
}
