/**
 * Gets the real Jaeger v2 / OpenTelemetry Collector binaries for the end-to-end suites: built
 * once from Go modules by scripts/ensure-otel-binaries.sh into a cache outside the repository
 * (reference jaeger-and-collector.md §1–3). No Docker engine answers on these machines, so the
 * testcontainers path is not wired in. When a binary cannot be had the suite skips with a loud
 * message, except with CI=true, where it fails.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SCRIPT = join(ROOT, 'scripts/ensure-otel-binaries.sh');

/** Path of the binary, or null (after a loud warning) when it cannot be built here and CI is not set. */
export async function ensureBinary(kind: 'jaeger' | 'collector'): Promise<string | null> {
  try {
    const stdout = await new Promise<string>((resolvePath, reject) => {
      execFile(SCRIPT, [kind], { timeout: 40 * 60_000, maxBuffer: 16 * 1024 * 1024 }, (err, out, errOut) => {
        if (err) reject(new Error(`${err.message}\n${errOut.slice(-4000)}`));
        else resolvePath(out);
      });
    });
    const path = stdout.trim().split('\n').pop();
    if (path === undefined || path === '') throw new Error('ensure-otel-binaries printed no path');
    return path;
  } catch (err) {
    const message = `\n\n!!! end-to-end: cannot get the ${kind} binary, so this suite is SKIPPED !!!\n${(err as Error).message}\n`;
    if (process.env.CI === 'true') throw new Error(message);
    console.warn(message);
    return null;
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolvePort(address.port) : reject(new Error('no port'))));
    });
  });
}

export interface RunningProcess {
  child: ChildProcess;
  output: () => string;
  stop(): Promise<void>;
}

/** Starts `binary --config <file>` with the given YAML written to a temp dir; waits for `healthUrl`. */
export async function runWithConfig(
  binary: string,
  name: string,
  yaml: string,
  healthUrl: string,
  extraEnv: Record<string, string> = {},
): Promise<RunningProcess> {
  const dir = mkdtempSync(join(tmpdir(), `sidegate-${name}-`));
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, yaml);
  // Jaeger's own tracer reads OTEL_* (it is off in our config; keep our variables away anyway).
  const env = { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('OTEL_'))), ...extraEnv };
  const child = spawn(binary, ['--config', file], { stdio: ['ignore', 'pipe', 'pipe'], env });
  let log = '';
  child.stdout?.on('data', (d: Buffer) => (log = (log + d.toString()).slice(-20_000)));
  child.stderr?.on('data', (d: Buffer) => (log = (log + d.toString()).slice(-20_000)));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
  };
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}:\n${log}`);
    try {
      const res = await fetch(healthUrl);
      if (res.ok) return { child, output: () => log, stop };
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  await stop();
  throw new Error(`${name} did not become healthy at ${healthUrl}:\n${log}`);
}

export interface Jaeger {
  otlpHttp: string;
  otlpGrpc: string;
  query: string;
  process: RunningProcess;
  close(): Promise<void>;
}

/** Jaeger v2 with in-memory storage, every port free and on loopback. Keys match Jaeger v2.13. */
export async function startJaeger(binary: string): Promise<Jaeger> {
  const [grpc, http, query, queryGrpc, health] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort()]);
  const yaml = `
service:
  extensions: [jaeger_storage, jaeger_query, healthcheckv2]
  pipelines:
    traces:
      receivers: [otlp]
      processors: []
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics:
      level: none
    logs:
      level: warn
extensions:
  jaeger_storage:
    backends:
      memstore:
        memory:
          max_traces: 100000
  jaeger_query:
    storage:
      traces: memstore
    enable_tracing: false
    http:
      endpoint: 127.0.0.1:${query}
    grpc:
      endpoint: 127.0.0.1:${queryGrpc}
  healthcheckv2:
    use_v2: true
    http:
      endpoint: 127.0.0.1:${health}
receivers:
  otlp:
    protocols:
      grpc:
        endpoint: 127.0.0.1:${grpc}
      http:
        endpoint: 127.0.0.1:${http}
exporters:
  jaeger_storage_exporter:
    trace_storage: memstore
`;
  const process = await runWithConfig(binary, 'jaeger', yaml, `http://127.0.0.1:${health}/status`);
  return {
    otlpHttp: `http://127.0.0.1:${http}`,
    otlpGrpc: `http://127.0.0.1:${grpc}`,
    query: `http://127.0.0.1:${query}`,
    process,
    close: () => process.stop(),
  };
}

/** One span as Jaeger's api/v3 returns it (OTLP JSON), with attributes flattened. */
export interface StoredSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  status: { code?: number; message?: string };
  attributes: Record<string, unknown>;
  links: Array<{ traceId: string; spanId: string }>;
  serviceName: string;
  raw: unknown;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: OtlpValue[] };
}

function flatten(value: OtlpValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(flatten);
  return undefined;
}

/** Spans of one trace from Jaeger's api/v3, polled until at least `min` spans are stored. */
export async function readTrace(query: string, traceId: string, min: number, timeoutMs = 15_000): Promise<StoredSpan[]> {
  const deadline = Date.now() + timeoutMs;
  let last: StoredSpan[] = [];
  while (Date.now() < deadline) {
    const res = await fetch(`${query}/api/v3/traces/${traceId}`);
    if (res.ok) {
      last = parseTrace(await res.json());
      if (last.length >= min) return last;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`trace ${traceId}: wanted ${min} spans in Jaeger, found ${last.length}`);
}

function parseTrace(body: unknown): StoredSpan[] {
  type Attr = { key: string; value: OtlpValue };
  type RS = {
    resource?: { attributes?: Attr[] };
    scopeSpans?: Array<{
      spans?: Array<{
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind?: number;
        status?: { code?: number; message?: string };
        attributes?: Attr[];
        links?: Array<{ traceId: string; spanId: string }>;
      }>;
    }>;
  };
  const out: StoredSpan[] = [];
  const resourceSpans = (body as { result?: { resourceSpans?: RS[] } }).result?.resourceSpans ?? [];
  for (const rs of resourceSpans) {
    const resource = Object.fromEntries((rs.resource?.attributes ?? []).map((a) => [a.key, flatten(a.value)]));
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        out.push({
          traceId: s.traceId,
          spanId: s.spanId,
          parentSpanId: s.parentSpanId ?? '',
          name: s.name,
          kind: s.kind ?? 0,
          status: s.status ?? {},
          attributes: Object.fromEntries((s.attributes ?? []).map((a) => [a.key, flatten(a.value)])),
          links: (s.links ?? []).map((l) => ({ traceId: l.traceId, spanId: l.spanId })),
          serviceName: String(resource['service.name'] ?? ''),
          raw: s,
        });
      }
    }
  }
  return out;
}
