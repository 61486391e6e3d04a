// Each target across several bench reports: how many runs met it, and its figure run by run, with
// the floor+SDK's beside it. One run decides nothing on a shared machine (docs/performance.md, "How
// it is measured"); this is the view of a target that sits at its line.
//   node bench/across-runs.mjs [--summary | --arithmetic] bench/results/reference-2026-11-28-issue25-round15-*.json [more.json …]
// Reads the `targets` array `npm run bench` writes (bench/results/latest.json); prints a Markdown
// table, a column per run, or with --summary one row per target: runs met, the range of its figure
// and of the floor+SDK's, and the figure's mean and standard deviation across the runs (where a
// target sits against its line, and how far one run strays from it). With --arithmetic, one row per
// run of "Where the floor is"'s arithmetic instead: tracing off's own work plus the plain SDK's
// (floor+SDK − floor) against sidegate's figure, at each rate and for throughput at max, and the
// share of the floor's throughput tracing off would have to keep for the two to reach 50 %, and
// the share of it that CPU per request at max ≤ 2× asks for (see arithmeticFigures).
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

const args = process.argv.slice(2);
const summary = args.includes('--summary');
const arithmetic = args.includes('--arithmetic');
const files = args.filter((arg) => arg !== '--summary' && arg !== '--arithmetic');
if (files.length === 0) {
  process.stderr.write('usage: node bench/across-runs.mjs <bench report.json> [more …]\n');
  process.exit(2);
}

const runs = files.map((file) => ({ name: basename(file, '.json'), report: JSON.parse(readFileSync(file, 'utf8')) }));

/** A number with its sign, as the bench prints differences: "+0.160", "−0.040". */
const signed = (n, decimals = 3) => (n < 0 ? `−${Math.abs(n).toFixed(decimals)}` : `+${n.toFixed(decimals)}`);

/** The figure a target is judged by, as the bench prints it: a ratio, a share or a difference. */
function figure(row) {
  const detail = String(row.detail ?? '');
  const ratio = /^(-?[\d.]+)×/.exec(detail);
  if (ratio) return `${ratio[1]}×`;
  const share = /^(\d+) %/.exec(detail);
  if (share) return `${share[1]} %`;
  const against = /^floor (\+-?[\d.]+) ms/.exec(detail);
  if (against) return `floor ${against[1].replace('+-', '−')} ms`;
  if (typeof row.sidegate === 'number' && /on − off/.test(detail)) return `${signed(row.sidegate)} ms`;
  return /RSS/.test(row.target) ? `${row.sidegate} MB` : String(row.sidegate ?? '');
}

/** The floor+SDK's figure on the same scale, where the bench recorded one. */
function sdkFigure(row) {
  if (typeof row.sdk_floor !== 'number') return '';
  if (/moves p99/.test(row.target)) return `${signed(row.sdk_floor)} ms`;
  if (/ms/.test(row.target) && typeof row.floor === 'number') return `floor ${signed(row.sdk_floor - row.floor)} ms`;
  if (/≤ 2× floor/.test(row.target) && row.floor) return `${(row.sdk_floor / row.floor).toFixed(2)}×`;
  if (/% of floor/.test(row.target) && row.floor) return `${Math.round((100 * row.sdk_floor) / row.floor)} %`;
  return '';
}

/** A printed figure's number, signed ("floor −0.04 ms" is −0.04). */
const value = (f) => Number(/(−|-)?[\d.]+/.exec(f)?.[0].replace('−', '-') ?? NaN);

/** "low to high" of figures that share a unit ("1.79×", "floor +0.16 ms", "47 %"). */
function range(figures) {
  const present = figures.filter((f) => f !== '');
  const sorted = [...present].sort((a, b) => value(a) - value(b));
  if (sorted.length === 0) return '';
  return sorted[0] === sorted.at(-1) ? sorted[0] : `${sorted[0]} to ${sorted.at(-1)}`;
}

/** "mean (sd)" of figures that share a unit, in that unit: "2.02× (sd 0.07)". */
function meanAndSd(figures) {
  const present = figures.filter((f) => f !== '');
  if (present.length < 2) return '';
  const values = present.map(value);
  const mean = values.reduce((sum, v) => sum + v, 0) / values.length;
  const sd = Math.sqrt(values.reduce((sum, v) => sum + (v - mean) ** 2, 0) / (values.length - 1));
  const decimals = Math.max(...present.map((f) => /\.(\d+)/.exec(f)?.[1].length ?? 0));
  // The figures' own shape: "floor +0.16 ms" and "+1.2 ms" are differences and keep their sign.
  const sample = present[0];
  const prefix = sample.startsWith('floor') ? 'floor ' : '';
  const unit = sample.slice(sample.search(/\d/)).replace(/^[\d.]+/, '');
  const shown = prefix || /^[+−-]/.test(sample) ? signed(mean, decimals) : mean.toFixed(decimals);
  return `${prefix}${shown}${unit} (sd ${sd.toFixed(decimals)})`;
}

/**
 * One run's "Where the floor is" arithmetic (docs/performance.md): if sidegate's own work (tracing
 * off − floor) and the plain SDK's (floor+SDK − floor) simply add, sidegate's CPU ratio is
 * off/floor + sdk/floor − 1 and its share of the floor's throughput 1 / (1/a + 1/b − 1) of the
 * two shares; what sidegate measures beyond that is its telemetry's excess over the plain SDK's.
 * Per rate [the two added, sidegate, the excess in µs], then throughput [the two, sidegate] in %;
 * undefined where the run lacks a participant.
 */
function arithmeticFigures(report) {
  const measured = (figures) => figures.every((x) => typeof x === 'number' && x > 0);
  const cells = [];
  for (const segment of [...Object.values(report.fixed_rate), report.max]) {
    const [floor, sdk, off, on] = ['floor', 'sdkfloor', 'off', 'on'].map((key) => segment[key]?.cpu_per_request_us);
    cells.push(measured([floor, sdk, off, on]) ? [(off + sdk - floor) / floor, on / floor, on - off - (sdk - floor)] : undefined);
  }
  const [floor, sdk, off, on] = ['floor', 'sdkfloor', 'off', 'on'].map((key) => report.max[key]?.rps);
  const complete = measured([floor, sdk, off, on]);
  cells.push(complete ? [100 / (floor / sdk + floor / off - 1), (100 * on) / floor] : undefined);
  // Own work's budget: the share of the floor's throughput tracing off must keep for the two to
  // give 50 % beside the plain SDK's share a, 1 / (1/0.5 + 1 − 1/a) (above 100 % where the plain
  // SDK alone keeps less than half), and the share it kept.
  cells.push(complete ? [100 / Math.max(0, 3 - floor / sdk), (100 * off) / floor] : undefined);
  // At its own maximum each participant's CPU per request is the cores its process used over its
  // req/s, so sidegate's ratio there is (its cores / the floor's) / its share of the floor's
  // throughput, and ≤ 2× asks for a share of at least half the cores' ratio. [sidegate's cores,
  // the floor's, the share asked, the share kept]
  const [floorCpu, onCpu] = ['floor', 'on'].map((key) => report.max[key]?.cpu_per_request_us);
  if (!measured([floor, on, floorCpu, onCpu])) cells.push(undefined);
  else {
    const [onCores, floorCores] = [(on * onCpu) / 1e6, (floor * floorCpu) / 1e6];
    cells.push([onCores, floorCores, (50 * onCores) / floorCores, (100 * on) / floor]);
  }
  return cells;
}

/** One cell of the arithmetic table, a run's or the mean's. */
const arithmeticCell = (figures) =>
  figures === undefined
    ? '—'
    : figures.length === 4
      ? `${figures[0].toFixed(2)} / ${figures[1].toFixed(2)} cores: ${Math.round(figures[2])} % / ${Math.round(figures[3])} %`
      : figures.length === 2
      ? `${Number.isFinite(figures[0]) ? Math.round(figures[0]) : '∞'} % / ${Math.round(figures[1])} %`
      : `${figures[0].toFixed(2)}× / ${figures[1].toFixed(2)}× / ${signed(Math.round(figures[2]), 0)} µs`;

if (arithmetic) {
  const rates = [...Object.keys(runs[0].report.fixed_rate).map((rate) => `${rate} req/s`), 'max'];
  const all = runs.map((r) => arithmeticFigures(r.report));
  const lines = [
    `| Run | ${rates.map((rate) => `CPU at ${rate}: the two added / sidegate / its telemetry's excess`).join(' | ')} | throughput at max: the two / sidegate | tracing off's share at max: needed for 50 % / kept | at max, sidegate's cores / the floor's: the share CPU ≤ 2× asks / sidegate's |`,
    `|---|${rates.map(() => '---').join('|')}|---|---|---|`,
    ...runs.map((r, i) => `| ${r.name.replace(/^reference-[\d-]+-/, '')} | ${all[i].map(arithmeticCell).join(' | ')} |`),
  ];
  if (runs.length > 1) {
    // The mean of each figure over the runs that have it: where the arithmetic puts the line.
    const mean = all[0].map((_, column) => {
      const present = all.map((figures) => figures[column]).filter((figures) => figures !== undefined);
      return present.length === 0 ? undefined : present[0].map((_, i) => present.reduce((sum, figures) => sum + figures[i], 0) / present.length);
    });
    lines.push(`| mean of ${runs.length} | ${mean.map(arithmeticCell).join(' | ')} |`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  process.exit(0);
}

const targets = runs[0].report.targets.map((row) => row.target);
const lines = summary
  ? [`| Target | runs met | sidegate, lowest to highest | sidegate, mean (sd) | floor+SDK |`, `|---|---|---|---|---|`]
  : [
      `| Target | runs met | ${runs.map((r) => r.name.replace(/^reference-[\d-]+-/, '')).join(' | ')} |`,
      `|---|---|${runs.map(() => '---').join('|')}|`,
    ];
for (const target of targets) {
  const rows = runs.map((r) => r.report.targets.find((row) => row.target === target));
  const met = rows.filter((row) => row?.met).length;
  if (summary) {
    const present = rows.filter((row) => row !== undefined);
    const figures = present.map(figure);
    lines.push(`| ${target} | ${met} of ${rows.length} | ${range(figures)} | ${meanAndSd(figures)} | ${range(present.map(sdkFigure))} |`);
    continue;
  }
  const cells = rows.map((row) => {
    if (!row) return '—';
    const sdk = sdkFigure(row);
    return `${figure(row)}${row.met ? '' : ' ✗'}${sdk ? ` (SDK ${sdk})` : ''}`;
  });
  lines.push(`| ${target} | ${met} of ${rows.length} | ${cells.join(' | ')} |`);
}
process.stdout.write(`${lines.join('\n')}\n`);
