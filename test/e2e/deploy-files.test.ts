/**
 * Offline checks of the files that need a Docker engine or a cluster to run (DESIGN Decision 15):
 * they parse, reference files that exist, and agree with each other on ports and variables.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { parseRoutingConfig, type ConfigGroup, type ConfigTarget } from '../../src/config/routing-config.js';
import { settingsWithDefaults } from '../../src/config/settings.js';
import { defaultInflightBudget, REQUEST_WEIGHT } from '../../src/overload/inflight-budget.js';
// @ts-expect-error: a plain ES module of the repo's scripts, no type declarations
import { SHIPPED_NODE_FLAGS } from '../../scripts/shipped-node-flags.mjs';

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

describe('Jaeger retention (deploy/jaeger/jaeger.yaml, compose, deploy/k8s/jaeger.yaml)', () => {
  const config = parse(read('deploy/jaeger/jaeger.yaml')) as Json;
  const compose = parse(read('docker-compose.yml')) as Json;
  const docs = parseAllDocuments(read('deploy/k8s/jaeger.yaml')).map((d) => d.toJS() as Json);
  const goDuration = /^\d+(h|m|s)$/;

  it('stores traces in badger on disk with an explicit span TTL, and serves them from the same store', () => {
    const backends = config.extensions.jaeger_storage.backends as Json;
    const [name, backend] = Object.entries(backends)[0] as [string, Json];
    expect(Object.keys(backends)).toHaveLength(1);
    expect(backend.badger.ephemeral).toStrictEqual(false);
    expect(backend.badger.ttl.spans).toMatch(/^\$\{env:JAEGER_SPAN_TTL:-168h\}$/);
    expect(backend.badger.directories.keys).not.toStrictEqual(backend.badger.directories.values);
    expect(config.extensions.jaeger_query.storage.traces).toStrictEqual(name);
    expect(config.exporters.jaeger_storage_exporter.trace_storage).toStrictEqual(name);
    expect(config.service.pipelines.traces).toStrictEqual({ receivers: ['otlp'], processors: ['batch'], exporters: ['jaeger_storage_exporter'] });
  });

  it('compose mounts that config and a named volume, sets the TTL, and points the gateway at the query API', () => {
    const jaeger = compose.services.jaeger;
    expect(jaeger.command).toStrictEqual(['--config', '/etc/jaeger/jaeger.yaml']);
    expect(jaeger.volumes).toContain('./deploy/jaeger/jaeger.yaml:/etc/jaeger/jaeger.yaml:ro');
    const [volume, mount] = (jaeger.volumes as string[]).find((v) => !v.startsWith('./'))!.split(':');
    expect(Object.keys(compose.volumes)).toContain(volume);
    expect(mount).toStrictEqual(jaeger.environment.JAEGER_BADGER_DIR);
    expect(jaeger.environment.JAEGER_SPAN_TTL).toStrictEqual('${JAEGER_SPAN_TTL:-168h}');
    expect(compose.services.sidegate.environment.SIDEGATE_TRACES_URL).toStrictEqual('http://jaeger:16686');
  });

  it('the Kubernetes example carries the same UI config beside the Jaeger config', () => {
    const configMap = docs.find((d) => d.kind === 'ConfigMap') as Json;
    expect(configMap.data['ui-config.json']).toStrictEqual(read('deploy/jaeger/ui-config.json'));
  });

  it('the Kubernetes example carries the same config, a volume for badger and a TTL, behind the service the sidecar reads', () => {
    const configMap = docs.find((d) => d.kind === 'ConfigMap') as Json;
    expect(configMap.data['jaeger.yaml']).toStrictEqual(read('deploy/jaeger/jaeger.yaml'));
    const deployment = docs.find((d) => d.kind === 'Deployment') as Json;
    const pod = deployment.spec.template.spec;
    const container = pod.containers[0];
    const env = Object.fromEntries(container.env.map((e: Json) => [e.name, e.value]));
    expect(env.JAEGER_SPAN_TTL).toMatch(goDuration);
    const mounts = Object.fromEntries(container.volumeMounts.map((m: Json) => [m.name, m.mountPath]));
    expect(mounts.badger).toStrictEqual(env.JAEGER_BADGER_DIR);
    expect(`${mounts.config}/jaeger.yaml`).toStrictEqual(container.args[1]);
    const volumes = Object.fromEntries(pod.volumes.map((v: Json) => [v.name, v]));
    expect(volumes.config.configMap.name).toStrictEqual(configMap.metadata.name);
    const claim = docs.find((d) => d.kind === 'PersistentVolumeClaim') as Json;
    expect(volumes.badger.persistentVolumeClaim.claimName).toStrictEqual(claim.metadata.name);
    expect(deployment.spec.strategy.type).toStrictEqual('Recreate');

    const service = docs.find((d) => d.kind === 'Service') as Json;
    const query = service.spec.ports.find((p: Json) => p.name === 'query');
    const sidecar = (parseAllDocuments(read('deploy/k8s/sidegate-sidecar.yaml')).map((d) => d.toJS() as Json).find((d) => d.kind === 'Deployment') as Json)
      .spec.template.spec.initContainers[0];
    const tracesUrl = sidecar.env.find((e: Json) => e.name === 'SIDEGATE_TRACES_URL').value;
    expect(tracesUrl).toStrictEqual(`http://${service.metadata.name}.${service.metadata.namespace}:${query.port}`);
  });
});

describe('Jaeger UI config (deploy/jaeger/ui-config.json) linking Jaeger and the Traces view both ways', () => {
  const ui = JSON.parse(read('deploy/jaeger/ui-config.json')) as Json;
  const config = parse(read('deploy/jaeger/jaeger.yaml')) as Json;
  const compose = parse(read('docker-compose.yml')) as Json;
  const sidecar = (parseAllDocuments(read('deploy/k8s/sidegate-sidecar.yaml')).map((d) => d.toJS() as Json).find((d) => d.kind === 'Deployment') as Json).spec
    .template.spec.initContainers[0];
  const gatewayPort = compose.services.sidegate.environment.SIDEGATE_PORT as string;

  it('links every trace to /ui/traces/{id} and every gateway.prompt.id tag to /ui/prompts/{id}, on the gateway port', () => {
    expect(ui.linkPatterns).toStrictEqual([
      { type: 'traces', url: `http://localhost:${gatewayPort}/ui/traces/#{traceID}`, text: expect.any(String) },
      { type: 'tags', key: 'gateway.prompt.id', url: `http://localhost:${gatewayPort}/ui/prompts/#{gateway.prompt.id}`, text: expect.any(String) },
    ]);
    expect(ui.topTagPrefixes).toStrictEqual(['gen_ai.', 'gateway.']);
    expect(ui.menu[0].items[0].url).toStrictEqual(`http://localhost:${gatewayPort}/ui/traces`);
    expect(compose.services.sidegate.ports).toContain(`${gatewayPort}:${gatewayPort}`);
  });

  it('Jaeger reads it from beside its config, where compose mounts it; the gateway links to Jaeger UI on 16686', () => {
    expect(config.extensions.jaeger_query.ui.config_file).toStrictEqual('${env:JAEGER_UI_CONFIG:-/etc/jaeger/ui-config.json}');
    expect(compose.services.jaeger.volumes).toContain('./deploy/jaeger/ui-config.json:/etc/jaeger/ui-config.json:ro');
    expect(compose.services.sidegate.environment.SIDEGATE_JAEGER_UI_URL).toStrictEqual('http://localhost:16686');
    expect(compose.services.jaeger.ports).toContain('16686:16686');
    expect(sidecar.env.find((e: Json) => e.name === 'SIDEGATE_JAEGER_UI_URL').value).toStrictEqual('http://localhost:16686');
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
  it('copies only paths that exist and runs the built CLI with the flags of npm start', () => {
    for (const match of dockerfile.matchAll(/^COPY (?!--from)(.+) \S+$/gm)) {
      for (const path of (match[1] as string).split(/\s+/)) expect(existsSync(join(ROOT, path)), path).toStrictEqual(true);
    }
    expect(SHIPPED_NODE_FLAGS).toStrictEqual(['--single-threaded-gc', '--no-allocation-site-pretenuring']);
    const entrypoint = /^ENTRYPOINT (.+)$/m.exec(dockerfile)?.[1];
    expect(JSON.parse(entrypoint ?? 'null')).toStrictEqual(['node', ...SHIPPED_NODE_FLAGS, 'dist/main.js']);
    expect(JSON.parse(read('package.json')).bin.sidegate).toStrictEqual('dist/main.js');
  });

  it('sets the malloc trim threshold the benchmark measures idle memory with', () => {
    const image = /MALLOC_TRIM_THRESHOLD_=(\d+)/.exec(dockerfile)?.[1];
    const bench = /MALLOC_TRIM_THRESHOLD_: '(\d+)'/.exec(read('bench/processes.mjs'))?.[1];
    expect(image).toBeDefined();
    expect(image).toStrictEqual(bench);
  });
});

describe('deploy/k8s/sidegate-vertex.yaml (Vertex AI with GKE Workload Identity)', () => {
  const docs = parseAllDocuments(read('deploy/k8s/sidegate-vertex.yaml')).map((d) => d.toJS() as Json);
  const byKind = (kind: string) => docs.filter((d) => d.kind === kind);
  const deployment = byKind('Deployment')[0] as Json;
  const pod = deployment.spec.template.spec;
  const sidecar = pod.initContainers.find((c: Json) => c.name === 'sidegate');
  const env = Object.fromEntries(sidecar.env.map((e: Json) => [e.name, e.value]));

  it('runs the pod as a ServiceAccount annotated with the Google service account it acts as', () => {
    const [account] = byKind('ServiceAccount') as Json[];
    expect(pod.serviceAccountName).toStrictEqual(account!.metadata.name);
    expect(account!.metadata.annotations['iam.gke.io/gcp-service-account']).toMatch(/^[a-z][-a-z0-9]*@[a-z][-a-z0-9]*\.iam\.gserviceaccount\.com$/);
    expect(pod.hostNetwork).not.toStrictEqual(true);
  });

  it('holds no Google key: no key file, no credentials variable, the only Secret is the gateway key', () => {
    const text = read('deploy/k8s/sidegate-vertex.yaml');
    expect(text).not.toMatch(/GOOGLE_APPLICATION_CREDENTIALS|private_key|service_account_json|"type":\s*"service_account"/);
    const secrets = byKind('Secret') as Json[];
    expect(secrets.flatMap((s) => Object.keys(s.stringData))).toStrictEqual(['gateway-api-key']);
    for (const v of pod.volumes) expect(v.secret).toBeUndefined();
  });

  it('mounts a routing config of Vertex targets in the project the service account belongs to', () => {
    const [configMap] = byKind('ConfigMap') as Json[];
    const volume = pod.volumes.find((v: Json) => v.configMap?.name === configMap!.metadata.name);
    const mount = sidecar.volumeMounts.find((m: Json) => m.name === volume.name);
    expect(env.SIDEGATE_CONFIG_DIR).toStrictEqual(mount.mountPath);
    const appConfig = pod.containers[0].env.find((e: Json) => e.name === 'SIDEGATE_CONFIG').value as string;
    const config = parseRoutingConfig(configMap!.data[`${appConfig}.json`]) as ConfigGroup;
    const account = (byKind('ServiceAccount')[0] as Json).metadata.annotations['iam.gke.io/gcp-service-account'] as string;
    const project = account.split('@')[1]!.split('.')[0];
    for (const target of config.targets as ConfigTarget[]) {
      expect(target.provider).toStrictEqual('vertex-ai');
      expect(target.vertexProjectId).toStrictEqual(project);
      expect(target.vertexRegion).toBeDefined();
      expect(target.apiKey).toBeUndefined();
    }
    expect(env.GOOGLE_CLOUD_PROJECT).toStrictEqual(project);
  });
});
