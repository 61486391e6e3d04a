// A benchmark participant in its own process (so the load generator does not share its CPU):
//   node bench/child.mjs emulator
//   node bench/child.mjs gateway <geminiBaseUrl> <gatewayKey>
//   node bench/child.mjs sink
// Prints one JSON line {"url": ...} when listening; answers the IPC messages of probe.mjs.
// The gateway takes its tracing from the OTEL_* environment run.mjs gives it (exporting to a live
// sink, OTEL_SDK_DISABLED=true, or an endpoint where nothing listens) and, with
// BENCH_UPSTREAM_CONNECTIONS, an upstream pool of that size (the 1,000-open-streams run).
// BENCH_DIST names another build of sidegate to run (compare.mjs --baseline: an A/B of two commits).
import { pathToFileURL } from 'node:url';
import { installProbe } from './probe.mjs';

const dist = process.env.BENCH_DIST ? pathToFileURL(`${process.env.BENCH_DIST.replace(/\/+$/, '')}/`) : new URL('../dist/', import.meta.url);
const load = (path) => import(new URL(path, dist).href);

const [role, baseUrl, key] = process.argv.slice(2);

let close;
if (role === 'emulator') {
  const { startEmulator } = await load('emulator/index.js');
  const emulator = await startEmulator({ port: 0, maxRecordedRequests: 100 });
  close = () => emulator.close();
  process.stdout.write(`${JSON.stringify({ url: emulator.url })}\n`);
} else if (role === 'gateway') {
  // As `sidegate serve` does (main.ts): hold V8's young generation at its initial size before
  // anything else loads (server/hold-young-generation.ts; absent from builds before it, such as
  // an older --baseline).
  await load('server/hold-young-generation.js').catch((err) => {
    if (err.code !== 'ERR_MODULE_NOT_FOUND') throw err;
  });
  const { startGateway } = await load('gateway/start-gateway.js');
  const { createTelemetry } = await load('telemetry/create-telemetry.js');
  const telemetry = createTelemetry({ env: process.env, logger: () => {} });
  const deps = { telemetry, log: () => {} };
  const connections = Number(process.env.BENCH_UPSTREAM_CONNECTIONS ?? 0);
  if (connections > 0) {
    const { createGeminiProvider } = await load('providers/gemini/gemini-provider.js');
    const { Agent } = await load('http-client.js');
    deps.providers = { google: createGeminiProvider({ dispatcher: new Agent({ keepAliveTimeout: 30_000, connections }) }) };
  }
  const gateway = await startGateway({ port: 0, geminiBaseUrl: baseUrl, apiKeys: [key] }, deps);
  close = () => gateway.close();
  process.stdout.write(`${JSON.stringify({ url: gateway.url })}\n`);
} else if (role === 'sink') {
  // A live OTLP/HTTP receiver that accepts and discards: the gateway pays the real export cost
  // (serialisation, HTTP) without a collector's own CPU use skewing the figures.
  const { createServer } = await import('node:http');
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/x-protobuf', 'content-length': 0 });
      res.end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  close = () => new Promise((resolve) => server.close(resolve));
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${server.address().port}` })}\n`);
} else {
  process.stderr.write(`unknown role ${role}\n`);
  process.exit(2);
}

installProbe();
process.on('SIGTERM', () => {
  void close().finally(() => process.exit(0));
});
