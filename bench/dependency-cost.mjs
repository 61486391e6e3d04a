// What each runtime dependency costs the moment it is loaded: modules and resident memory.
//
// For each dependency in package.json, a fresh `node --expose-gc` process loads exactly what
// sidegate loads from it (the same specifiers, `import` or `require` as src/ does; undici through
// the two internal paths src/providers/http-client.ts requires) and reports:
//   modules  files loaded by that step alone: ES modules seen by a loader hook
//            (module.register, appending each loaded file: URL to a file) plus CommonJS modules
//            added to require.cache, minus those present before the step;
//   rss      process.memoryUsage().rss after minus before, each read after a forced gc();
//   heap     heapUsed after minus before, each after a forced gc().
// The module count and the memory come from separate processes (the loader hook runs on a thread
// of its own and would add to the memory figure). Memory is the median of --runs processes
// (default 3). Each dependency is measured alone, so what two share (@opentelemetry/api above
// all) is counted in both; the last row loads everything `sidegate serve` loads at start together.
//
//   node bench/dependency-cost.mjs [--runs 3] [--json]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);

/** What src/ loads from each dependency, and when (checked against src/ by hand; see docs/architecture.md). */
const DEPENDENCIES = [
  { name: '@opentelemetry/api', when: 'start', imports: ['@opentelemetry/api'] },
  { name: '@opentelemetry/core', when: 'start', imports: ['@opentelemetry/core'] },
  { name: '@opentelemetry/resources', when: 'start', imports: ['@opentelemetry/resources'] },
  { name: '@opentelemetry/sdk-trace-base', when: 'start', imports: ['@opentelemetry/sdk-trace-base'] },
  { name: '@opentelemetry/sdk-metrics', when: 'start', imports: ['@opentelemetry/sdk-metrics'] },
  { name: '@opentelemetry/semantic-conventions', when: 'start', imports: ['@opentelemetry/semantic-conventions'] },
  { name: '@opentelemetry/exporter-prometheus', when: 'start', imports: ['@opentelemetry/exporter-prometheus'] },
  { name: '@opentelemetry/otlp-transformer', when: 'start (default protocol)', requires: ['@opentelemetry/otlp-transformer'] },
  { name: '@opentelemetry/otlp-exporter-base', when: 'start (default protocol)', requires: ['@opentelemetry/otlp-exporter-base/node-http'] },
  { name: '@opentelemetry/exporter-metrics-otlp-http', when: 'start (default protocol)', requires: ['@opentelemetry/exporter-metrics-otlp-http'] },
  { name: '@opentelemetry/exporter-trace-otlp-grpc', when: 'protocol grpc', requires: ['@opentelemetry/exporter-trace-otlp-grpc'] },
  { name: '@opentelemetry/exporter-metrics-otlp-grpc', when: 'protocol grpc', requires: ['@opentelemetry/exporter-metrics-otlp-grpc'] },
  { name: 'undici', when: 'start', requires: ['undici/lib/dispatcher/agent.js', 'undici/lib/api/api-request.js'] },
  { name: 'zod', when: 'start', imports: ['zod'] },
  { name: 'yaml', when: 'first prompt template', imports: ['yaml'] },
  { name: 'mustache', when: 'first prompt template', imports: ['mustache'] },
  { name: 'busboy', when: 'first POST /v1/files', imports: ['busboy'] },
  { name: 'google-auth-library', when: 'first Vertex AI call with a service-account key or ADC', imports: ['google-auth-library'] },
];
const AT_START = {
  name: 'all loaded at start, together',
  when: 'start',
  imports: DEPENDENCIES.filter((d) => d.when.startsWith('start')).flatMap((d) => d.imports ?? []),
  requires: DEPENDENCIES.filter((d) => d.when.startsWith('start')).flatMap((d) => d.requires ?? []),
};
const ROWS = [...DEPENDENCIES, AT_START];

async function loadRow(row) {
  for (const specifier of row.imports ?? []) await import(specifier);
  for (const specifier of row.requires ?? []) require(specifier);
}

function rssAndHeap() {
  globalThis.gc();
  const { rss, heapUsed } = process.memoryUsage();
  return { rss, heapUsed };
}

// Loader hook source: appends every loaded file: URL to the file named in its init data.
const HOOKS = `
import { appendFileSync } from 'node:fs';
let out;
export function initialize(data) { out = data.out; }
export async function load(url, context, next) {
  if (url.startsWith('file:')) appendFileSync(out, url + '\\n');
  return next(url, context);
}`;

async function child(index, mode) {
  const row = ROWS[index];
  if (mode === 'memory') {
    const before = rssAndHeap();
    await loadRow(row);
    const after = rssAndHeap();
    process.stdout.write(JSON.stringify({ rss: after.rss - before.rss, heap: after.heapUsed - before.heapUsed }));
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'sidegate-dep-cost-'));
  const out = join(dir, 'esm.txt');
  writeFileSync(out, '');
  const hooks = join(dir, 'hooks.mjs');
  writeFileSync(hooks, HOOKS);
  register(pathToFileURL(hooks), { data: { out } });
  const loaded = () =>
    new Set([
      ...readFileSync(out, 'utf8').split('\n').filter(Boolean).map((u) => fileURLToPath(u)),
      ...Object.keys(require.cache),
    ]);
  const before = loaded();
  await loadRow(row);
  const after = loaded();
  rmSync(dir, { recursive: true, force: true });
  const added = [...after].filter((f) => !before.has(f));
  process.stdout.write(JSON.stringify({ modules: added.length }));
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function measure(index, mode) {
  const out = execFileSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), '--child', String(index), mode], {
    encoding: 'utf8',
  });
  return JSON.parse(out);
}

async function main(argv) {
  const childAt = argv.indexOf('--child');
  if (childAt >= 0) return child(Number(argv[childAt + 1]), argv[childAt + 2]);
  const runsAt = argv.indexOf('--runs');
  const runs = runsAt >= 0 ? Number(argv[runsAt + 1]) : 3;
  const results = ROWS.map((row, index) => {
    const { modules } = measure(index, 'modules');
    const memory = Array.from({ length: runs }, () => measure(index, 'memory'));
    return {
      name: row.name,
      when: row.when,
      modules,
      rssMB: median(memory.map((m) => m.rss)) / 1e6,
      heapMB: median(memory.map((m) => m.heap)) / 1e6,
    };
  });
  if (argv.includes('--json')) {
    process.stdout.write(`${JSON.stringify({ date: new Date().toISOString(), node: process.version, runs, results }, null, 2)}\n`);
    return;
  }
  process.stdout.write(`node ${process.version}, median of ${runs} fresh processes per row\n\n`);
  process.stdout.write('| Dependency | Loaded | Modules | RSS | Heap |\n|---|---|---:|---:|---:|\n');
  for (const r of results) {
    process.stdout.write(`| \`${r.name}\` | ${r.when} | ${r.modules} | +${r.rssMB.toFixed(1)} MB | +${r.heapMB.toFixed(1)} MB |\n`);
  }
}

await main(process.argv.slice(2));
