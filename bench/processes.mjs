// Starting and reading the bench's processes (run.mjs, profile.mjs): each participant is its own
// process, CPU and memory are read from procfs so the peer (no IPC) is measured the same way.
import { fork, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { availableParallelism } from 'node:os';
import { SHIPPED_NODE_FLAGS } from '../scripts/shipped-node-flags.mjs';

const here = dirname(fileURLToPath(import.meta.url));

export const GATEWAY_KEY = 'bench-gateway-key';
export const MODEL = 'gemini-2.5-flash';

export const PROMPT = 'Say hello to the benchmark.';
export const chatBody = JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: PROMPT }], max_tokens: 64 });
export const chatStreamBody = JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: PROMPT }], max_tokens: 64, stream: true });
export const geminiBody = JSON.stringify({ contents: [{ role: 'user', parts: [{ text: PROMPT }] }], generationConfig: { maxOutputTokens: 64 } });

export const TICK_MS = 1000 / Number(execFileSync('getconf', ['CLK_TCK']).toString().trim() || 100);
/** User and system CPU in ms from a procfs `stat` file (utime and stime, fields 14 and 15). */
function statCpu(file) {
  const stat = readFileSync(file, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { userMs: Number(fields[11]) * TICK_MS, systemMs: Number(fields[12]) * TICK_MS };
}
function statCpuMs(file) {
  const { userMs, systemMs } = statCpu(file);
  return userMs + systemMs;
}
/** User + system CPU of a process in ms, from procfs (works for every participant, the peer too). */
export const cpuMs = (pid) => statCpuMs(`/proc/${pid}/stat`);
/**
 * User + system CPU in ms of a process's main thread alone (its task whose id is the pid): the
 * thread the event loop runs on, which bounds a Node process's throughput; the rest of `cpuMs` is
 * V8's and libuv's helper threads.
 */
export const mainThreadCpuMs = (pid) => statCpuMs(`/proc/${pid}/task/${pid}/stat`);
/** The system (kernel) share of `cpuMs`: system calls, page faults and interrupts while it ran. */
export const systemCpuMs = (pid) => statCpu(`/proc/${pid}/stat`).systemMs;
/** VmRSS (and VmHWM) in MB, as the kernel reports them. */
export function rss(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
  return { rss_mb: mb(kb('VmRSS') * 1024), hwm_mb: mb(kb('VmHWM') * 1024) };
}

export const mb = (bytes) => Math.round((bytes / 1024 / 1024) * 10) / 10;
export const round = (x, digits = 3) => (Number.isFinite(x) ? Math.round(x * 10 ** digits) / 10 ** digits : null);
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * glibc's malloc setting the sidegate image sets (Dockerfile): every process of the bench runs
 * with it (the floor's and the peer's too, so the comparison stays even). See docs/performance.md "Idle memory".
 */
const MALLOC_ENV = { MALLOC_TRIM_THRESHOLD_: '131072' };

/**
 * `--pin` (run.mjs): every participant on the last CPU, and this process (the load generator), the
 * emulator and the OTLP sink on the others, so a participant's latency is its own (a sidecar on its
 * CPU share) rather than its place in the queue for two cores shared by four processes.
 */
let pinning;
export function pinParticipants() {
  const cpus = availableParallelism();
  if (cpus < 2) throw new Error('--pin needs at least two CPUs');
  pinning = { participant: String(cpus - 1), others: `0-${cpus - 2}` };
  pin(process.pid, pinning.others);
}
/** Pins a participant started elsewhere (the peer) like those `start` starts; nothing without --pin. */
export function pinParticipant(pid) {
  if (pinning) pin(pid, pinning.participant);
}
function pin(pid, cpuList) {
  // -a: every thread the process has now (V8's GC helpers, libuv's pool); later ones inherit it.
  execFileSync('taskset', ['-a', '-p', '-c', cpuList, String(pid)], { stdio: 'ignore' });
}
const helperRoles = new Set(['emulator', 'sink']);

export function start(file, argv = [], env = {}, execArgv = []) {
  const child = fork(join(here, file), argv, {
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
    execArgv: ['--expose-gc', ...execArgv],
    env: { ...MALLOC_ENV, ...process.env, ...env },
  });
  return new Promise((resolve, reject) => {
    // The first line that is a JSON object; V8 tracing flags (--trace-gc, --trace-deopt) write to stdout too.
    let buf = '';
    let found = false;
    child.stdout.on('data', (d) => {
      if (found) return;
      buf += d;
      for (let nl = buf.indexOf('\n'); nl !== -1 && !found; nl = buf.indexOf('\n')) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (line.startsWith('{"url"')) {
          found = true;
          if (pinning) pin(child.pid, file === 'child.mjs' && helperRoles.has(argv[0]) ? pinning.others : pinning.participant);
          resolve({ child, pid: child.pid, url: JSON.parse(line).url });
        }
      }
    });
    child.once('exit', (code) => reject(new Error(`${file} ${argv[0] ?? ''} exited with ${code}`)));
  });
}

export function ask(child, type, extra = {}) {
  return new Promise((resolve) => {
    const onMessage = (m) => {
      if (m?.type === type) {
        child.off('message', onMessage);
        resolve(m);
      }
    };
    child.on('message', onMessage);
    child.send({ type, ...extra });
  });
}

/** `sidegate.telemetry.spans.dropped` from a sidegate participant's `/metrics`, all reasons. */
export async function spansDropped(p) {
  const text = await (await fetch(`${p.url}/metrics`)).text();
  let total = 0;
  for (const line of text.split('\n')) if (line.startsWith('sidegate_telemetry_spans_dropped_total')) total += Number(line.slice(line.lastIndexOf(' ') + 1));
  return total;
}

export async function freePort() {
  const srv = createServer();
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address();
  await new Promise((r) => srv.close(r));
  return port;
}

export function gatewayTargets(url, headers) {
  return {
    json: { origin: url, path: '/v1/chat/completions', headers, body: chatBody },
    stream: { origin: url, path: '/v1/chat/completions', headers, body: chatStreamBody },
  };
}
export const sidegateHeaders = {
  'content-type': 'application/json',
  'x-gateway-api-key': GATEWAY_KEY,
  'x-gateway-provider': 'google',
  authorization: 'Bearer bench-provider-key',
};

/**
 * sidegate in its own process; `env` says how it traces (run.mjs: on, off, collector down). It runs
 * with the Node flags it ships with (`npm start`, the image), then `execArgv`; the floor and the
 * peer run with Node's defaults.
 */
export async function startSidegate(emulatorUrl, env = {}, execArgv = []) {
  const p = await start(
    'child.mjs',
    ['gateway', emulatorUrl, GATEWAY_KEY],
    { OTEL_SERVICE_NAME: 'sidegate-bench', OTEL_METRIC_EXPORT_INTERVAL: '60000', ...env },
    [...SHIPPED_NODE_FLAGS, ...execArgv],
  );
  return { ...p, ...gatewayTargets(p.url, sidegateHeaders) };
}

/** The floor (floor.mjs) with an upstream pool of `connections`. */
export async function startFloor(emulatorUrl, connections = 128, env = {}, execArgv = []) {
  const p = await start('floor.mjs', [emulatorUrl, String(connections)], env, execArgv);
  return { ...p, ...gatewayTargets(p.url, { 'content-type': 'application/json' }) };
}

/** The floor + SDK: the floor recording each request with the real SDK (floor-telemetry.mjs), exporting to `otlpEndpoint`. */
export function startSdkFloor(emulatorUrl, otlpEndpoint, env = {}) {
  return startFloor(emulatorUrl, 128, { ...env, FLOOR_OTLP_ENDPOINT: otlpEndpoint });
}

/** The upstream alone: the emulator's own routes, the reference every "added" figure subtracts. */
export function directTargets(emulatorUrl) {
  const headers = { 'content-type': 'application/json', 'x-goog-api-key': 'bench-provider-key' };
  return {
    json: { origin: emulatorUrl, path: `/v1beta/models/${MODEL}:generateContent`, headers, body: geminiBody },
    stream: { origin: emulatorUrl, path: `/v1beta/models/${MODEL}:streamGenerateContent?alt=sse`, headers, body: geminiBody },
  };
}

