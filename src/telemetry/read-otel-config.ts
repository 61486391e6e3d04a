/**
 * Reads the standard `OTEL_*` variables (OTel spec `sdk-environment-variables.md` and
 * `protocol/exporter.md`) from a plain env object into plain options, once, at startup.
 * Semantics copy `@opentelemetry/core`'s `get*FromEnv` helpers (blank means unset, values are
 * trimmed, a bad value warns and takes the default) but read the env object they are given,
 * so tests pass options instead of mutating `process.env`. Never throws for `OTEL_*`.
 */
import { parseKeyPairsIntoRecord } from '@opentelemetry/core';

/** sidegate's default for OTEL_BSP_MAX_EXPORT_BATCH_SIZE (the spec's is 512); see `bsp` below. */
export const SIDEGATE_DEFAULT_EXPORT_BATCH_SIZE = 64;

export type OtlpProtocol = 'http/protobuf' | 'http/json' | 'grpc';
export type SamplerName =
  | 'always_on'
  | 'always_off'
  | 'traceidratio'
  | 'parentbased_always_on'
  | 'parentbased_always_off'
  | 'parentbased_traceidratio';
export type ContentCapture = 'none' | 'span' | 'event' | 'span_and_event';

export interface OtlpSignalConfig {
  protocol: OtlpProtocol;
  url: string;
  headers: Record<string, string>;
  timeoutMillis: number;
  compression: 'gzip' | 'none';
}

export interface OtelConfig {
  disabled: boolean;
  serviceName: string;
  resourceAttributes: Record<string, string>;
  tracesExporters: Array<'otlp' | 'console'>;
  metricsExporters: Array<'otlp' | 'console'>;
  traces: OtlpSignalConfig;
  metrics: OtlpSignalConfig;
  metricExportIntervalMillis: number;
  metricExportTimeoutMillis: number;
  sampler: { name: SamplerName; ratio: number };
  propagators: Array<'tracecontext' | 'baggage'>;
  bsp: { scheduledDelayMillis: number; exportTimeoutMillis: number; maxQueueSize: number; maxExportBatchSize: number };
  spanLimits: { attributeValueLengthLimit?: number; attributeCountLimit?: number; eventCountLimit?: number; linkCountLimit?: number };
  captureContent: ContentCapture;
  logLevel?: string;
}

type Env = Readonly<Record<string, string | undefined>>;
type Warn = (message: string) => void;

/** The list of every variable read here, for the docs (docs/tracing.md) and `sidegate --help`. */
export const HONOURED_OTEL_VARIABLES = [
  'OTEL_SDK_DISABLED',
  'OTEL_SERVICE_NAME',
  'OTEL_RESOURCE_ATTRIBUTES',
  'OTEL_TRACES_EXPORTER',
  'OTEL_METRICS_EXPORTER',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
  'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT',
  'OTEL_EXPORTER_OTLP_PROTOCOL',
  'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL',
  'OTEL_EXPORTER_OTLP_METRICS_PROTOCOL',
  'OTEL_EXPORTER_OTLP_HEADERS',
  'OTEL_EXPORTER_OTLP_TRACES_HEADERS',
  'OTEL_EXPORTER_OTLP_METRICS_HEADERS',
  'OTEL_EXPORTER_OTLP_TIMEOUT',
  'OTEL_EXPORTER_OTLP_TRACES_TIMEOUT',
  'OTEL_EXPORTER_OTLP_METRICS_TIMEOUT',
  'OTEL_EXPORTER_OTLP_COMPRESSION',
  'OTEL_EXPORTER_OTLP_TRACES_COMPRESSION',
  'OTEL_EXPORTER_OTLP_METRICS_COMPRESSION',
  'OTEL_METRIC_EXPORT_INTERVAL',
  'OTEL_METRIC_EXPORT_TIMEOUT',
  'OTEL_TRACES_SAMPLER',
  'OTEL_TRACES_SAMPLER_ARG',
  'OTEL_PROPAGATORS',
  'OTEL_BSP_SCHEDULE_DELAY',
  'OTEL_BSP_EXPORT_TIMEOUT',
  'OTEL_BSP_MAX_QUEUE_SIZE',
  'OTEL_BSP_MAX_EXPORT_BATCH_SIZE',
  'OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT',
  'OTEL_ATTRIBUTE_COUNT_LIMIT',
  'OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT',
  'OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT',
  'OTEL_SPAN_EVENT_COUNT_LIMIT',
  'OTEL_SPAN_LINK_COUNT_LIMIT',
  'OTEL_LOG_LEVEL',
  'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT',
] as const;

export function readOtelConfig(env: Env, warn: Warn): OtelConfig {
  const read = new EnvReader(env, warn);
  const resourceAttributes = read.keyPairs('OTEL_RESOURCE_ATTRIBUTES');
  return {
    disabled: read.boolean('OTEL_SDK_DISABLED', false),
    serviceName: read.string('OTEL_SERVICE_NAME') ?? resourceAttributes['service.name'] ?? 'sidegate',
    resourceAttributes,
    tracesExporters: read.exporters('OTEL_TRACES_EXPORTER'),
    metricsExporters: read.exporters('OTEL_METRICS_EXPORTER'),
    traces: read.otlp('TRACES', 'v1/traces'),
    metrics: read.otlp('METRICS', 'v1/metrics'),
    metricExportIntervalMillis: read.number('OTEL_METRIC_EXPORT_INTERVAL', 60_000, 1),
    metricExportTimeoutMillis: read.number('OTEL_METRIC_EXPORT_TIMEOUT', 30_000, 0),
    sampler: read.sampler(),
    propagators: read.propagators(),
    bsp: {
      scheduledDelayMillis: read.number('OTEL_BSP_SCHEDULE_DELAY', 5000, 0),
      exportTimeoutMillis: read.number('OTEL_BSP_EXPORT_TIMEOUT', 30_000, 0),
      maxQueueSize: read.number('OTEL_BSP_MAX_QUEUE_SIZE', 2048, 1),
      // Deliberately below the spec's 512 when unset: a batch is serialised in one event-loop turn,
      // and 512 spans at a time showed as a 2× worse p99 for requests in flight (npm run bench).
      maxExportBatchSize: read.number('OTEL_BSP_MAX_EXPORT_BATCH_SIZE', SIDEGATE_DEFAULT_EXPORT_BATCH_SIZE, 1),
    },
    spanLimits: dropUndefined({
      attributeValueLengthLimit:
        read.optionalNumber('OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT') ?? read.optionalNumber('OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT'),
      attributeCountLimit: read.optionalNumber('OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT') ?? read.optionalNumber('OTEL_ATTRIBUTE_COUNT_LIMIT'),
      eventCountLimit: read.optionalNumber('OTEL_SPAN_EVENT_COUNT_LIMIT'),
      linkCountLimit: read.optionalNumber('OTEL_SPAN_LINK_COUNT_LIMIT'),
    }),
    captureContent: read.contentCapture(),
    ...dropUndefined({ logLevel: read.string('OTEL_LOG_LEVEL') }),
  };
}

function dropUndefined<T extends object>(obj: T): T {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined)) as T;
}

class EnvReader {
  constructor(
    private readonly env: Env,
    private readonly warn: Warn,
  ) {}

  string(name: string): string | undefined {
    const v = this.env[name]?.trim();
    return v === undefined || v === '' ? undefined : v;
  }

  boolean(name: string, fallback: boolean): boolean {
    const v = this.string(name)?.toLowerCase();
    if (v === undefined) return fallback;
    if (v === 'true') return true;
    if (v === 'false') return false;
    this.warn(`${name}=${v} is not true or false; using ${fallback}`);
    return fallback;
  }

  optionalNumber(name: string, min = 0): number | undefined {
    const v = this.string(name);
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isInteger(n) || n < min) {
      this.warn(`${name}=${v} is not an integer ≥ ${min}; ignoring it`);
      return undefined;
    }
    return n;
  }

  number(name: string, fallback: number, min: number): number {
    const v = this.string(name);
    if (v === undefined) return fallback;
    const n = Number(v);
    if (!Number.isFinite(n) || n < min) {
      this.warn(`${name}=${v} is not a number ≥ ${min}; using ${fallback}`);
      return fallback;
    }
    return Math.floor(n);
  }

  keyPairs(name: string): Record<string, string> {
    const v = this.string(name);
    if (v === undefined) return {};
    try {
      return parseKeyPairsIntoRecord(v);
    } catch {
      this.warn(`${name} is not a list of key=value pairs; ignoring it`);
      return {};
    }
  }

  exporters(name: string): Array<'otlp' | 'console'> {
    const list = (this.string(name) ?? 'otlp').split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
    if (list.includes('none')) return [];
    const out: Array<'otlp' | 'console'> = [];
    for (const item of list) {
      if (item === 'otlp' || item === 'console') out.push(item);
      // /metrics always serves Prometheus text; the value only means "no push exporter".
      else if (item !== 'prometheus') this.warn(`${name}: exporter ${item} is not supported; ignoring it`);
    }
    return out;
  }

  otlp(signal: 'TRACES' | 'METRICS', path: string): OtlpSignalConfig {
    const protocolName = this.string(`OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`) ?? this.string('OTEL_EXPORTER_OTLP_PROTOCOL');
    let protocol: OtlpProtocol = 'http/protobuf';
    if (protocolName === 'grpc' || protocolName === 'http/json' || protocolName === 'http/protobuf') protocol = protocolName;
    else if (protocolName !== undefined) this.warn(`OTEL_EXPORTER_OTLP_PROTOCOL ${protocolName} is not grpc, http/protobuf or http/json; using http/protobuf`);

    const fallbackUrl = protocol === 'grpc' ? 'http://localhost:4317' : `http://localhost:4318/${path}`;
    let url = fallbackUrl;
    const own = this.string(`OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`);
    const base = this.string('OTEL_EXPORTER_OTLP_ENDPOINT');
    // The per-signal endpoint is used as is; the base endpoint gets the signal path (HTTP only).
    const candidate = own ?? (base === undefined ? undefined : protocol === 'grpc' ? base : `${base.replace(/\/+$/, '')}/${path}`);
    if (candidate !== undefined) {
      if (URL.canParse(candidate)) url = candidate;
      else this.warn(`OTLP endpoint ${candidate} is not a URL; using ${fallbackUrl}`);
    }
    const headers = Object.assign(this.keyPairs('OTEL_EXPORTER_OTLP_HEADERS'), this.keyPairs(`OTEL_EXPORTER_OTLP_${signal}_HEADERS`));
    const timeoutMillis =
      this.optionalNumber(`OTEL_EXPORTER_OTLP_${signal}_TIMEOUT`, 1) ?? this.optionalNumber('OTEL_EXPORTER_OTLP_TIMEOUT', 1) ?? 10_000;
    const compressionName = (this.string(`OTEL_EXPORTER_OTLP_${signal}_COMPRESSION`) ?? this.string('OTEL_EXPORTER_OTLP_COMPRESSION'))?.toLowerCase();
    let compression: 'gzip' | 'none' = 'none';
    if (compressionName === 'gzip') compression = 'gzip';
    else if (compressionName !== undefined && compressionName !== 'none') this.warn(`OTLP compression ${compressionName} is not gzip or none; using none`);
    return { protocol, url, headers, timeoutMillis, compression };
  }

  sampler(): { name: SamplerName; ratio: number } {
    const names: SamplerName[] = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'];
    const raw = this.string('OTEL_TRACES_SAMPLER')?.toLowerCase();
    let name: SamplerName = 'parentbased_always_on';
    if (raw !== undefined) {
      if ((names as string[]).includes(raw)) name = raw as SamplerName;
      else this.warn(`OTEL_TRACES_SAMPLER=${raw} is not supported; using parentbased_always_on`);
    }
    let ratio = 1;
    const arg = this.string('OTEL_TRACES_SAMPLER_ARG');
    if (arg !== undefined && name.endsWith('traceidratio')) {
      const n = Number(arg);
      if (Number.isFinite(n) && n >= 0 && n <= 1) ratio = n;
      else this.warn(`OTEL_TRACES_SAMPLER_ARG=${arg} is not a probability in [0, 1]; using 1`);
    }
    return { name, ratio };
  }

  propagators(): Array<'tracecontext' | 'baggage'> {
    const raw = this.string('OTEL_PROPAGATORS');
    if (raw === undefined) return ['tracecontext', 'baggage'];
    const out: Array<'tracecontext' | 'baggage'> = [];
    for (const item of raw.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean)) {
      if (item === 'none') return [];
      if (item === 'tracecontext' || item === 'baggage') {
        if (!out.includes(item)) out.push(item);
      } else this.warn(`OTEL_PROPAGATORS: ${item} is not supported (tracecontext, baggage, none); ignoring it`);
    }
    return out;
  }

  contentCapture(): ContentCapture {
    const name = 'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT';
    const raw = this.string(name)?.toLowerCase();
    switch (raw) {
      case undefined:
      case 'false':
      case 'no_content':
        return 'none';
      case 'true':
      case 'span_only':
        return 'span';
      case 'event_only':
        return 'event';
      case 'span_and_event':
        return 'span_and_event';
      default:
        this.warn(`${name}=${raw} is not true, false, NO_CONTENT, SPAN_ONLY, EVENT_ONLY or SPAN_AND_EVENT; capturing nothing`);
        return 'none';
    }
  }
}
