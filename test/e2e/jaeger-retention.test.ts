/**
 * The Jaeger config that docker-compose.yml and deploy/k8s/jaeger.yaml ship (deploy/jaeger/jaeger.yaml:
 * badger on disk with an explicit span TTL) run as is by the real Jaeger binary (issue 8 item 4).
 * Docker and a cluster are not available here (DESIGN Decision 15); the binary is, so this checks
 * that Jaeger accepts the config, stores what the gateway sends, serves it to GET /v1/traces, and
 * keeps it across a restart (badger, not memory). The expiry itself is badger's and is not waited for.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mapTraceId } from '../../src/telemetry/map-id.js';
import { startGatewayUnderTest, type GatewayUnderTest } from './gateway-under-test.js';
import { ensureBinary, freePort, readTrace, runWithConfig, type RunningProcess } from './otel-binaries.js';

const GATEWAY_KEY = 'sg-e2e-retention-key-0123456789';
const binary = await ensureBinary('jaeger');
const ROOT = new URL('../..', import.meta.url).pathname;

describe.skipIf(binary === null)('deploy/jaeger/jaeger.yaml in the real Jaeger', () => {
  let badgerDir: string;
  let config: string;
  let under: GatewayUnderTest | undefined;
  const running: RunningProcess[] = [];

  async function startJaegerFromDeployConfig(): Promise<{ query: string; otlpHttp: string; process: RunningProcess }> {
    const [grpc, http, query, queryGrpc, health] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort()]);
    const process = await runWithConfig(binary as string, 'jaeger-badger', config, `http://127.0.0.1:${health}/status`, {
      JAEGER_SPAN_TTL: '24h',
      JAEGER_BADGER_DIR: badgerDir,
      JAEGER_OTLP_GRPC_ENDPOINT: `127.0.0.1:${grpc}`,
      JAEGER_OTLP_HTTP_ENDPOINT: `127.0.0.1:${http}`,
      JAEGER_QUERY_HTTP_ENDPOINT: `127.0.0.1:${query}`,
      JAEGER_QUERY_GRPC_ENDPOINT: `127.0.0.1:${queryGrpc}`,
      JAEGER_HEALTH_ENDPOINT: `127.0.0.1:${health}`,
      JAEGER_UI_CONFIG: join(ROOT, 'deploy/jaeger/ui-config.json'),
    });
    running.push(process);
    return { query: `http://127.0.0.1:${query}`, otlpHttp: `http://127.0.0.1:${http}`, process };
  }

  beforeAll(async () => {
    badgerDir = await mkdtemp(join(tmpdir(), 'sidegate-badger-'));
    config = await readFile(join(ROOT, 'deploy/jaeger/jaeger.yaml'), 'utf8');
  });

  afterAll(async () => {
    await under?.close();
    for (const p of running) await p.stop();
    if (badgerDir) await rm(badgerDir, { recursive: true, force: true });
  });

  it('stores logs in badger, serves them to GET /v1/traces, and still has them after a restart', async () => {
    const first = await startJaegerFromDeployConfig();
    expect(first.process.output()).toContain('Badger storage configuration');
    // Jaeger read and parsed the UI config (links to the Traces view); a file it cannot parse stops it.
    expect(first.process.output()).toMatch(new RegExp(`Using UI configuration.*"path": "${join(ROOT, 'deploy/jaeger/ui-config.json')}"`));
    under = await startGatewayUnderTest({
      otlpEndpoint: first.otlpHttp,
      serviceName: 'sidegate-retention-e2e',
      gatewayKey: GATEWAY_KEY,
      providerKey: 'AIzaE2eRetentionKey0123456789abcdefgh',
      settings: { tracesUrl: first.query, dataDir: join(badgerDir, 'gateway') },
    });
    const traceId = 'retention-e2e';
    const res = await fetch(`${under.gateway.url}/v1/logs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gateway-api-key': GATEWAY_KEY },
      body: JSON.stringify([
        { request: {}, response: { response_time: 20 }, metadata: { traceId, spanId: 'a', spanName: 'kept' } },
        { request: {}, response: { response_time: 5 }, metadata: { traceId, spanId: 'b', parentSpanId: 'a', spanName: 'child' } },
      ]),
    });
    expect(res.status).toBe(200);
    await under.telemetry.forceFlush();
    expect(await readTrace(first.query, mapTraceId(traceId), 2)).toHaveLength(2);
    const summary = await fetch(`${under.gateway.url}/v1/traces/${traceId}`, { headers: { 'x-gateway-api-key': GATEWAY_KEY } });
    expect(summary.status).toBe(200);
    expect(((await summary.json()) as { totals: { spans: number } }).totals.spans).toBe(2);

    await first.process.stop();
    const second = await startJaegerFromDeployConfig();
    const again = await readTrace(second.query, mapTraceId(traceId), 2);
    expect(again.map((s) => s.name).sort()).toStrictEqual(['child', 'kept']);
  });
});
