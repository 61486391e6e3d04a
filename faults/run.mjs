#!/usr/bin/env node
// `npm run faults`: the built gateway (dist/main.js) against the emulator with scripted faults
// and a fake collector, all real processes on loopback. Prints one table (sent / answered
// correctly / lost / 5xx for bad input, per fault), writes faults/results/<time>.json and
// latest.json, and checks that no test key appears in any log line, exported span or answer.
//
//   npm run faults               every row (a few minutes)
//   npm run faults -- --fast     the CI subset: smaller counts, no 50 MB rows
//   npm run faults -- --only a,b rows whose name contains one of the words
//
// Exit code 1 when a row is off target or a secret was found; the run is bounded by a
// deadline (10 min, 4 min with --fast) after which it stops and reports what it has.
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ADMIN_KEY, GATEWAY_KEY, PROVIDER_KEY, SECRET_NAMES, SECRETS, send } from './lib/client.mjs';
import { startCollector, startEmulator, startGateway } from './lib/processes.mjs';
import { rows } from './rows.mjs';
import { targetHealthRows } from './target-health-rows.mjs';

const args = process.argv.slice(2);
const fast = args.includes('--fast');
const onlyArg = args.find((a) => a.startsWith('--only'));
const only = onlyArg ? (onlyArg.includes('=') ? onlyArg.split('=')[1] : args[args.indexOf(onlyArg) + 1]).split(',') : undefined;
const deadlineMs = fast ? 4 * 60_000 : 10 * 60_000;

const ROOT = new URL('..', import.meta.url).pathname;
const stamp = new Date().toISOString().replace(/[:.]/g, '-');
const resultsDir = join(ROOT, 'faults/results');
const runDir = join(resultsDir, `run-${stamp}`);
await mkdir(runDir, { recursive: true });

const started = performance.now();
const hardStop = setTimeout(() => {
  process.stderr.write(`faults: the run passed its deadline (${deadlineMs / 1000} s); stopping\n`);
  process.exit(2);
}, deadlineMs);
hardStop.unref();

const logFile = join(runDir, 'processes.log');
const emu = await startEmulator(logFile);
const collector = await startCollector('ok');
await writeFile(join(runDir, 'virtual-keys.json'), JSON.stringify([{ slug: 'fk', provider: 'google', api_key: PROVIDER_KEY }]));
const env = {
  SIDEGATE_API_KEYS: GATEWAY_KEY,
  SIDEGATE_ADMIN_KEY: ADMIN_KEY,
  SIDEGATE_GEMINI_BASE_URL: emu.url,
  // Vertex AI against the emulator, the pod's identity from its metadata server (ADC).
  SIDEGATE_VERTEX_BASE_URL: emu.url,
  GCE_METADATA_HOST: emu.url.replace(/^http:\/\//, ''),
  GOOGLE_CLOUD_PROJECT: 'sidegate-emulator',
  SIDEGATE_DATA_DIR: join(runDir, 'data'),
  SIDEGATE_VIRTUAL_KEYS_FILE: join(runDir, 'virtual-keys.json'),
  SIDEGATE_UPSTREAM_TIMEOUT_MS: '5000',
  SIDEGATE_HEADERS_TIMEOUT_MS: '1000',
  SIDEGATE_REQUEST_TIMEOUT_MS: '2000',
  SIDEGATE_SHUTDOWN_GRACE_MS: '10000',
  // These rows fail one target again and again and judge how each failure is answered; with its
  // circuit breaker on, the later ones would be answered 503 at once. The outage rows
  // (target-health-rows.mjs) start their own gateways with the defaults.
  SIDEGATE_CIRCUIT_BREAKER: 'false',
  OTEL_SERVICE_NAME: 'sidegate-faults',
  OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
  OTEL_BSP_SCHEDULE_DELAY: '200',
  OTEL_METRIC_EXPORT_INTERVAL: '2000',
  // Content capture on, so a key that slipped into a message or an answer would be exported too.
  OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true',
};
const gw = await startGateway(env, logFile);
gw.pid = gw.child.pid;

const selected = [...rows({ fast }), ...targetHealthRows({ fast })].filter((r) => (fast ? r.fast : true) && (!only || only.some((w) => r.name.includes(w))));
const results = [];
for (const row of selected) {
  const t = performance.now();
  process.stderr.write(`faults: ${row.name} …\n`);
  let r;
  try {
    await emu.reset();
    r = await row.run({ gw, emu, env, dir: runDir, logFile });
  } catch (err) {
    r = { sent: 0, correct: 0, lost: 0, note: `the row failed to run: ${err instanceof Error ? err.message : String(err)}`, failed: true };
  }
  const health = await send(gw.url, { method: 'GET', path: '/healthz', headers: {}, timeoutMs: 10_000 });
  const bad5xx = r.bad5xx ?? 0;
  // `offTarget`: the row's own figure (a latency, a count) missed its target.
  const atTarget = !r.failed && !r.offTarget && r.sent > 0 && r.correct === r.sent && r.lost === 0 && bad5xx === 0 && health.status === 200;
  results.push({ fault: row.name, sent: r.sent, correct: r.correct, lost: r.lost, bad5xx, atTarget, seconds: Math.round((performance.now() - t) / 100) / 10, note: r.note ?? '', ...(r.figures ? { figures: r.figures } : {}), ...(r.cases ? { cases: r.cases } : {}) });
}

// Let the last spans leave, stop everything, then look for the test keys everywhere, and for
// every access token the emulator's metadata server and token endpoint issued.
await new Promise((r) => setTimeout(r, 1500));
for (const token of await emu.tokens()) {
  SECRETS.push(token);
  SECRET_NAMES.set(token, 'a Vertex AI access token');
}
await gw.stop();
await emu.stop();
await collector.close();
const places = [];
for (const file of await readdir(runDir)) {
  if (!file.endsWith('.log')) continue;
  const text = await readFile(join(runDir, file), 'utf8');
  for (const s of SECRETS) if (text.includes(s)) places.push(`${file} holds ${SECRET_NAMES.get(s)}`);
}
const exported = Buffer.concat(collector.bodies);
for (const s of SECRETS) if (exported.includes(Buffer.from(s))) places.push(`exported telemetry holds ${SECRET_NAMES.get(s)}`);
const keyRow = results.find((r) => r.fault.includes('echoing the provider key'));
const secrets = { found: places.length, where: places, exportedBytes: exported.length, logsChecked: true };

const table = [
  '| Fault | Sent | Answered correctly | Lost | 5xx for bad input | At target | Notes |',
  '|---|---:|---:|---:|---:|---|---|',
  ...results.map((r) => `| ${r.fault} | ${r.sent} | ${r.correct} | ${r.lost} | ${r.fault === 'hostile input' ? r.bad5xx : '–'} | ${r.atTarget ? 'yes' : '**no**'} | ${r.note.replaceAll('|', '/')} |`),
].join('\n');
const summary = `Secrets (${SECRETS.length} test keys) in logs, exported spans and metrics: ${secrets.found}${secrets.found ? ` (${places.join('; ')})` : ''}${keyRow ? `; in answers: ${keyRow.sent - keyRow.correct}` : ''}.`;
process.stdout.write(`\n${table}\n\n${summary}\n`);

const report = {
  date: new Date().toISOString(),
  node: process.version,
  mode: fast ? 'fast' : 'full',
  seconds: Math.round((performance.now() - started) / 1000),
  rows: results,
  secrets,
  table,
};
await writeFile(join(resultsDir, `${stamp}.json`), `${JSON.stringify(report, null, 2)}\n`);
await writeFile(join(resultsDir, fast ? 'latest-fast.json' : 'latest.json'), `${JSON.stringify(report, null, 2)}\n`);
process.stdout.write(`\nwritten: faults/results/${stamp}.json (logs in faults/results/run-${stamp}/)\n`);
process.exit(results.every((r) => r.atTarget) && secrets.found === 0 ? 0 : 1);
