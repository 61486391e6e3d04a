// Each target across several bench reports: how many runs met it, and its figure run by run, with
// the floor+SDK's beside it. One run decides nothing on a shared machine (docs/performance.md, "How
// it is measured"); this is the view of a target that sits at its line.
//   node bench/across-runs.mjs bench/results/reference-2026-11-28-issue25-round15-*.json [more.json …]
// Reads the `targets` array `npm run bench` writes (bench/results/latest.json); prints a table.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

const files = process.argv.slice(2);
if (files.length === 0) {
  process.stderr.write('usage: node bench/across-runs.mjs <bench report.json> [more …]\n');
  process.exit(2);
}

const runs = files.map((file) => ({ name: basename(file, '.json'), report: JSON.parse(readFileSync(file, 'utf8')) }));

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

const signed = (n) => (n < 0 ? `−${Math.abs(n).toFixed(3)}` : `+${n.toFixed(3)}`);

/** The floor+SDK's figure on the same scale, where the bench recorded one. */
function sdkFigure(row) {
  if (typeof row.sdk_floor !== 'number') return '';
  if (/moves p99/.test(row.target)) return `${signed(row.sdk_floor)} ms`;
  if (/ms/.test(row.target) && typeof row.floor === 'number') return `floor ${signed(row.sdk_floor - row.floor)} ms`;
  if (/≤ 2× floor/.test(row.target) && row.floor) return `${(row.sdk_floor / row.floor).toFixed(2)}×`;
  if (/% of floor/.test(row.target) && row.floor) return `${Math.round((100 * row.sdk_floor) / row.floor)} %`;
  return '';
}

const targets = runs[0].report.targets.map((row) => row.target);
const lines = [
  `| Target | runs met | ${runs.map((r) => r.name.replace(/^reference-[\d-]+-/, '')).join(' | ')} |`,
  `|---|---|${runs.map(() => '---').join('|')}|`,
];
for (const target of targets) {
  const rows = runs.map((r) => r.report.targets.find((row) => row.target === target));
  const met = rows.filter((row) => row?.met).length;
  const cells = rows.map((row) => {
    if (!row) return '—';
    const sdk = sdkFigure(row);
    return `${figure(row)}${row.met ? '' : ' ✗'}${sdk ? ` (SDK ${sdk})` : ''}`;
  });
  lines.push(`| ${target} | ${met} of ${rows.length} | ${cells.join(' | ')} |`);
}
process.stdout.write(`${lines.join('\n')}\n`);
