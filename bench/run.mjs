// `npm run bench`: sidegate's speed and memory targets, measured (never asserted in tests).
// Prints a table and writes bench/results/<timestamp>.json (and latest.json).
//   --seconds N        length of the fixed-rate latency run (default 10)
//   --rate N           gateway requests per second in that run (default 1000)
//   --requests N       requests for the memory-flatness run (default 200000; the target is 1000000)
//   --peer             also measure the best-known open-source TypeScript peer (installs it from npm
//                      into .cache/bench-peer on first use)
import { fork, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync, existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fixedRate, maxThroughput, summarize } from './load.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(args[i + 1]);
};
const SECONDS = flag('seconds', 10);
const RATE = flag('rate', 1000);
const REQUESTS = flag('requests', 200_000);
const PEER = args.includes('--peer');
const GATEWAY_KEY = 'bench-gateway-key';
const MODEL = 'gemini-2.5-flash';

const chatBody = JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'Say hello to the benchmark.' }], max_tokens: 64 });
const geminiBody = JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Say hello to the benchmark.' }] }], generationConfig: { maxOutputTokens: 64 } });

function start(role, extraArgs = [], env = {}, file = 'child.mjs') {
  const child = fork(join(here, file), [role, ...extraArgs], {
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
    execArgv: ['--expose-gc'],
    env: { ...process.env, ...env },
  });
  return new Promise((resolve, reject) => {
    let buf = '';
    child.stdout.on('data', (d) => {
      buf += d;
      const nl = buf.indexOf('\n');
      if (nl !== -1) resolve({ child, url: JSON.parse(buf.slice(0, nl)).url });
    });
    child.once('exit', (code) => reject(new Error(`${role} exited with ${code}`)));
  });
}

function memory(child, gc = true) {
  return new Promise((resolve) => {
    const onMessage = (m) => {
      if (m?.type === 'mem') {
        child.off('message', onMessage);
        resolve(m);
      }
    };
    child.on('message', onMessage);
    child.send({ type: 'mem', gc });
  });
}

const mb = (bytes) => Math.round((bytes / 1024 / 1024) * 10) / 10;

async function freePort() {
  const srv = createServer();
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address();
  await new Promise((r) => srv.close(r));
  return port;
}

async function startPeer(emulatorUrl) {
  const prefix = join(root, '.cache', 'bench-peer');
  const entry = join(prefix, 'node_modules', '@portkey-ai', 'gateway', 'build', 'start-server.js');
  if (!existsSync(entry)) {
    mkdirSync(prefix, { recursive: true });
    await new Promise((resolve, reject) => {
      const p = spawn('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', prefix, '@portkey-ai/gateway@1.15.2'], { stdio: 'inherit' });
      p.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`npm install exited ${code}`))));
    });
  }
  const port = await freePort();
  const child = spawn(process.execPath, [entry, `--port=${port}`, '--headless'], { stdio: ['ignore', 'ignore', 'inherit'] });
  const origin = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    try {
      await fetch(origin);
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    child,
    target: {
      origin,
      path: '/v1/chat/completions',
      headers: {
        'content-type': 'application/json',
        'x-portkey-provider': 'google',
        authorization: 'Bearer bench-provider-key',
        'x-portkey-custom-host': emulatorUrl,
      },
      body: chatBody,
    },
  };
}

async function main() {
  const sink = await start('sink');
  const emulator = await start('emulator');
  const gateway = await start('gateway', [emulator.url, GATEWAY_KEY], {
    OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
    OTEL_SERVICE_NAME: 'sidegate-bench',
    OTEL_METRIC_EXPORT_INTERVAL: '60000',
  });
  const direct = {
    origin: emulator.url,
    path: `/v1beta/models/${MODEL}:generateContent`,
    headers: { 'content-type': 'application/json', 'x-goog-api-key': 'bench-provider-key' },
    body: geminiBody,
  };
  const viaGateway = {
    origin: gateway.url,
    path: '/v1/chat/completions',
    headers: {
      'content-type': 'application/json',
      'x-gateway-api-key': GATEWAY_KEY,
      'x-gateway-provider': 'google',
      authorization: 'Bearer bench-provider-key',
    },
    body: chatBody,
  };
  const os = await import('node:os');
  const report = {
    date: new Date().toISOString(),
    node: process.version,
    cpus: os.cpus().length,
    load_average_at_start: os.loadavg(),
    tracing: 'on: spans and metrics exported over OTLP/HTTP protobuf to a live receiver',
  };

  await new Promise((r) => setTimeout(r, 1000));
  const idle = await memory(gateway.child);
  report.idle_memory = { rss_mb: mb(idle.rss), heap_used_mb: mb(idle.heapUsed) };
  console.log(`idle memory          rss ${report.idle_memory.rss_mb} MB (target ≤ 80 MB)`);

  // Before any load, so the baseline is the idle process.
  report.inline_image = await inlineImage(gateway.child, viaGateway);
  console.log(`20 MB inline image   status ${report.inline_image.status}, peak rss +${report.inline_image.peak_rss_delta_mb} MB = ${report.inline_image.ratio}× its size (target ≤ 2×)`);

  // Warm up both paths, then run each alone at the same fixed rate, so the emulator carries the same
  // load in both runs and the difference is what the gateway adds (tracing on).
  await fixedRate({ targets: [direct], ratePerSecond: RATE, seconds: 2 });
  await fixedRate({ targets: [viaGateway], ratePerSecond: RATE, seconds: 2 });
  const [d] = await fixedRate({ targets: [direct], ratePerSecond: RATE, seconds: SECONDS });
  const [g] = await fixedRate({ targets: [viaGateway], ratePerSecond: RATE, seconds: SECONDS });
  const ds = summarize(d.latencies);
  const gs = summarize(g.latencies);
  report.added_latency = {
    rate_per_second: RATE,
    seconds: SECONDS,
    direct: ds,
    via_gateway: gs,
    errors: { direct: d.errors, via_gateway: g.errors },
    added_p50_ms: round(gs.p50_ms - ds.p50_ms),
    added_p99_ms: round(gs.p99_ms - ds.p99_ms),
  };
  console.log(`upstream alone       p50 ${round(ds.p50_ms)} ms, p99 ${round(ds.p99_ms)} ms at ${RATE} req/s`);
  console.log(`through the gateway  p50 ${round(gs.p50_ms)} ms, p99 ${round(gs.p99_ms)} ms at ${RATE} req/s; errors ${g.errors}`);
  console.log(`added latency        p50 ${report.added_latency.added_p50_ms} ms (target ≤ 0.5), p99 ${report.added_latency.added_p99_ms} ms (target ≤ 1)`);

  // CPU per request, sidegate next to a bare proxy on the same machine (see bare-proxy.mjs).
  const bare = await start(emulator.url, [], {}, 'bare-proxy.mjs');
  const bareTarget = { ...viaGateway, origin: bare.url };
  const sidegateCpu = await cpuPerRequest(gateway.child, viaGateway);
  const bareCpu = await cpuPerRequest(bare.child, bareTarget);
  bare.child.kill('SIGTERM');
  report.cpu_per_request_us = { sidegate: sidegateCpu, bare_proxy: bareCpu, added: sidegateCpu - bareCpu };
  console.log(`CPU per request      sidegate ${sidegateCpu} µs, bare proxy ${bareCpu} µs → sidegate adds ${sidegateCpu - bareCpu} µs`);

  report.throughput = { sidegate: await maxThroughput({ target: viaGateway, seconds: 5 }) };
  console.log(`throughput           sidegate ${Math.round(report.throughput.sidegate.rps)} req/s (64 connections)`);
  if (PEER) {
    try {
      const peer = await startPeer(emulator.url);
      await maxThroughput({ target: peer.target, seconds: 1 });
      report.throughput.peer = { name: '@portkey-ai/gateway@1.15.2', ...(await maxThroughput({ target: peer.target, seconds: 5 })) };
      peer.child.kill('SIGTERM');
      report.throughput.ratio = round(report.throughput.sidegate.rps / report.throughput.peer.rps);
      console.log(`throughput           peer ${Math.round(report.throughput.peer.rps)} req/s → sidegate is ${report.throughput.ratio}×`);
    } catch (err) {
      report.throughput.peer = { error: String(err) };
      console.log(`throughput           peer not measured: ${err}`);
    }
  }

  // Memory over many requests: sample after every tenth of the run.
  const samples = [];
  const before = await memory(gateway.child);
  samples.push({ requests: 0, rss_mb: mb(before.rss), heap_used_mb: mb(before.heapUsed) });
  const step = Math.max(1, Math.floor(REQUESTS / 10));
  let done = 0;
  while (done < REQUESTS) {
    const n = Math.min(step, REQUESTS - done);
    await runCount(viaGateway, n);
    done += n;
    const m = await memory(gateway.child);
    samples.push({ requests: done, rss_mb: mb(m.rss), heap_used_mb: mb(m.heapUsed) });
  }
  const growth = samples.at(-1).heap_used_mb - samples[1].heap_used_mb;
  report.memory_over_requests = { requests: REQUESTS, samples, heap_growth_after_first_tenth_mb: round(growth) };
  console.log(`memory over ${REQUESTS} req  heap ${samples[1].heap_used_mb} → ${samples.at(-1).heap_used_mb} MB, rss ${samples[1].rss_mb} → ${samples.at(-1).rss_mb} MB`);


  gateway.child.kill('SIGTERM');
  emulator.child.kill('SIGTERM');
  sink.child.kill('SIGTERM');
  mkdirSync(join(here, 'results'), { recursive: true });
  const file = join(here, 'results', `${report.date.replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(join(here, 'results', 'latest.json'), `${JSON.stringify(report, null, 2)}\n`);
  console.log(`report               ${file}`);
}

function cpuUsage(child) {
  return new Promise((resolve) => {
    const onMessage = (m) => {
      if (m?.type === 'cpu') {
        child.off('message', onMessage);
        resolve(m);
      }
    };
    child.on('message', onMessage);
    child.send({ type: 'cpu' });
  });
}

async function cpuPerRequest(child, target, n = 10_000) {
  await runCount(target, 2_000);
  const before = await cpuUsage(child);
  await runCount(target, n);
  const after = await cpuUsage(child);
  return Math.round((after.user + after.system - before.user - before.system) / n);
}

async function runCount(target, n) {
  const { Pool } = await import('undici');
  const pool = new Pool(target.origin, { connections: 32 });
  let next = 0;
  const worker = async () => {
    while (next < n) {
      next++;
      const res = await pool.request({ method: 'POST', path: target.path, headers: target.headers, body: target.body });
      await res.body.dump();
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
  await pool.close();
}

async function inlineImage(child, target) {
  const size = 20 * 1024 * 1024;
  const bytes = Buffer.alloc(size);
  Buffer.from('89504e470d0a1a0a', 'hex').copy(bytes);
  for (let i = 8; i < size; i += 4096) bytes[i] = i & 0xff;
  const dataUri = `data:image/png;base64,${bytes.toString('base64')}`;
  const body = JSON.stringify({
    model: MODEL,
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Describe this.' }, { type: 'image_url', image_url: { url: dataUri } }] }],
  });
  const base = await memory(child);
  let peak = base.rss;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const m = await memory(child, false);
      peak = Math.max(peak, m.rss);
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  const res = await fetch(`${target.origin}${target.path}`, { method: 'POST', headers: target.headers, body });
  await res.arrayBuffer();
  sampling = false;
  await sampler;
  const delta = peak - base.rss;
  return { image_bytes: size, status: res.status, peak_rss_delta_mb: mb(delta), ratio: round(delta / size) };
}

const round = (x) => Math.round(x * 1000) / 1000;

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
