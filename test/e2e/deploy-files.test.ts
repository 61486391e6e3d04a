/**
 * Offline checks of the files that need a Docker engine or a cluster to run (DESIGN Decision 15):
 * they parse, reference files that exist, and agree with each other on ports and variables.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { settingsWithDefaults } from '../../src/config/settings.js';
import { defaultInflightBudget, REQUEST_WEIGHT } from '../../src/overload/inflight-budget.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('docker-compose.yml', () => {
  const compose = parse(read('docker-compose.yml')) as Json;

  it('runs the gateway from the Dockerfile, the collector with otel-collector.yaml and Jaeger with its UI on 16686', () => {
    expect(Object.keys(compose.services).sort()).toStrictEqual(['emulator', 'jaeger', 'otel-collector', 'sidegate']);
    expect(compose.services.sidegate.build).toStrictEqual('.');
    expect(existsSync(join(ROOT, 'Dockerfile'))).toStrictEqual(true);
    expect(compose.services['otel-collector'].volumes).toContain('./otel-collector.yaml:/etc/otelcol/otel-collector.yaml:ro');
    expect(compose.services['otel-collector'].command).toStrictEqual(['--config=/etc/otelcol/otel-collector.yaml']);
    expect(compose.services.jaeger.ports).toContain('16686:16686');
  });

  it('points the gateway at the collector and the collector at Jaeger', () => {
    const gw = compose.services.sidegate.environment;
    expect(gw.OTEL_EXPORTER_OTLP_ENDPOINT).toStrictEqual('http://otel-collector:4318');
    expect(gw.SIDEGATE_HOST).toStrictEqual('0.0.0.0');
    expect(compose.services['otel-collector'].environment.JAEGER_OTLP_GRPC_ENDPOINT).toStrictEqual('jaeger:4317');
  });
});

describe('otel-collector.yaml', () => {
  const config = parse(read('otel-collector.yaml')) as Json;

  it('wires every component it declares into a pipeline', () => {
    const used = new Set<string>();
    for (const p of Object.values(config.service.pipelines) as Json[]) {
      for (const key of ['receivers', 'processors', 'exporters']) for (const c of p[key] ?? []) used.add(c);
    }
    for (const section of ['receivers', 'processors', 'exporters', 'connectors']) {
      for (const name of Object.keys(config[section])) expect(used.has(name), `${section}.${name}`).toStrictEqual(true);
    }
    expect(config.service.pipelines['traces/in'].processors[0]).toStrictEqual('memory_limiter');
  });

  it('has OTLP over gRPC and HTTP, tail sampling that keeps errors and slow traces, and span metrics by model', () => {
    expect(Object.keys(config.receivers.otlp.protocols).sort()).toStrictEqual(['grpc', 'http']);
    const policies = config.processors.tail_sampling.policies.map((p: Json) => p.type);
    expect(policies).toStrictEqual(['status_code', 'latency', 'probabilistic']);
    expect(config.connectors.span_metrics.dimensions.map((d: Json) => d.name)).toStrictEqual([
      'gen_ai.request.model',
      'gen_ai.provider.name',
      'gen_ai.operation.name',
      'error.type',
    ]);
  });

  it('uses only components the test collector is built with', () => {
    const manifest = read('scripts/otelcol-builder.yaml');
    const modules: Record<string, string> = {
      otlp: 'otlpreceiver',
      memory_limiter: 'memorylimiterprocessor',
      transform: 'transformprocessor',
      redaction: 'redactionprocessor',
      tail_sampling: 'tailsamplingprocessor',
      batch: 'batchprocessor',
      forward: 'forwardconnector',
      span_metrics: 'spanmetricsconnector',
      otlp_grpc: 'otlpexporter',
      debug: 'debugexporter',
      health_check: 'healthcheckextension',
    };
    for (const section of ['receivers', 'processors', 'exporters', 'connectors', 'extensions']) {
      for (const name of Object.keys(config[section])) {
        const type = name.split('/')[0] as string;
        expect(modules[type], `${section}.${name}`).toBeDefined();
        expect(manifest).toContain(`/${modules[type]} `);
      }
    }
  });
});

describe('deploy/k8s/sidegate-sidecar.yaml', () => {
  const docs = parseAllDocuments(read('deploy/k8s/sidegate-sidecar.yaml')).map((d) => d.toJS() as Json);
  const deployment = docs.find((d) => d.kind === 'Deployment') as Json;
  const pod = deployment.spec.template.spec;
  const sidecar = pod.initContainers.find((c: Json) => c.name === 'sidegate');

  it('declares sidegate as a native sidecar with probes on the health port', () => {
    expect(sidecar.restartPolicy).toStrictEqual('Always');
    const health = sidecar.ports.find((p: Json) => p.name === 'health').containerPort;
    const env = Object.fromEntries(sidecar.env.map((e: Json) => [e.name, e.value]));
    expect(Number(env.SIDEGATE_HEALTH_PORT)).toStrictEqual(health);
    expect(env.SIDEGATE_HOST).toStrictEqual('127.0.0.1');
    for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe']) expect(sidecar[probe].httpGet.port).toStrictEqual('health');
    expect(sidecar.livenessProbe.httpGet.path).toStrictEqual('/healthz');
    expect(sidecar.readinessProbe.httpGet.path).toStrictEqual('/readyz');
  });

  it('references only secrets, keys and volumes it defines', () => {
    const secret = docs.find((d) => d.kind === 'Secret') as Json;
    for (const container of [...pod.initContainers, ...pod.containers]) {
      for (const e of container.env ?? []) {
        const ref = e.valueFrom?.secretKeyRef;
        if (ref) {
          expect(ref.name).toStrictEqual(secret.metadata.name);
          expect(Object.keys(secret.stringData)).toContain(ref.key);
        }
      }
      for (const m of container.volumeMounts ?? []) expect(pod.volumes.map((v: Json) => v.name)).toContain(m.name);
    }
    const grace = Number(sidecar.env.find((e: Json) => e.name === 'SIDEGATE_SHUTDOWN_GRACE_MS').value) / 1000;
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(grace);
  });

  it('gives the sidecar a memory limit whose in-flight budget holds one request at the default body limit', () => {
    const limit = sidecar.resources.limits.memory as string;
    expect(limit).toMatch(/^\d+Mi$/);
    const budget = defaultInflightBudget(Number.parseInt(limit, 10) * 1024 * 1024);
    expect(budget).toBeGreaterThanOrEqual(settingsWithDefaults().maxBodyBytes * REQUEST_WEIGHT);
    // …and the README shows the same arithmetic.
    expect(read('README.md')).toContain(`\`limits.memory: ${limit}\``);
    expect(read('README.md')).toContain(`**${budget / 1024 / 1024} MiB**`);
  });
});

describe('Dockerfile', () => {
  const dockerfile = read('Dockerfile');
  it('copies only paths that exist and runs the built CLI', () => {
    for (const match of dockerfile.matchAll(/^COPY (?!--from)(.+) \S+$/gm)) {
      for (const path of (match[1] as string).split(/\s+/)) expect(existsSync(join(ROOT, path)), path).toStrictEqual(true);
    }
    expect(dockerfile).toContain('ENTRYPOINT ["node", "dist/main.js"]');
    expect(JSON.parse(read('package.json')).bin.sidegate).toStrictEqual('dist/main.js');
  });
});
