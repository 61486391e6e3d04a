// Prints docs/faults.md's fault table from a results file (default faults/results/latest.json).
import { readFileSync } from 'node:fs';

const file = process.argv[2] ?? new URL('results/latest.json', import.meta.url).pathname;
const report = JSON.parse(readFileSync(file, 'utf8'));
const off = report.rows.filter((r) => !r.atTarget).map((r) => r.fault);
const keyRow = report.rows.find((r) => r.fault.includes('echoing the provider key'));
const inAnswers = keyRow ? `; in answers to an upstream that echoes the key: ${keyRow.sent - keyRow.correct}` : '';
process.stdout.write(
  `Latest full run (${report.date.slice(0, 16).replace('T', ' ')} UTC, Node ${report.node}, 2 vCPU shared with other work, ${report.seconds} s):\n\n` +
    `${report.table}\n\n` +
    `Secrets: ${report.secrets.found} of the test keys in the run's logs and exported telemetry` +
    `${report.secrets.found ? ` (${report.secrets.where.join('; ')})` : ''}${inAnswers}.` +
    `${off.length ? ` Off target: ${off.join(', ')}.` : ' Every row at target.'}\n`,
);
