/**
 * The e2e suites run the gateway in-process from its TypeScript sources, where there is no
 * compiled span export worker (a worker thread cannot start a .ts file). This global setup builds
 * the program once per e2e run under .cache/ (never racing dist/), and the suites hand its worker
 * to `createTelemetry`, so what Jaeger and the collector receive went through the worker exactly
 * as in `sidegate serve`.
 */
import { execFileSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';

const root = new URL('../..', import.meta.url).pathname;
const outDir = `${root}.cache/test-build/e2e`;

/** The built worker's entry, for `createTelemetry({ exportWorkerUrl })`. */
export const E2E_EXPORT_WORKER_URL = pathToFileURL(`${outDir}/telemetry/span-export-worker.js`);

export default function setup(): void {
  execFileSync(process.execPath, [`${root}node_modules/typescript/bin/tsc`, '-p', 'tsconfig.build.json', '--outDir', outDir], { cwd: root });
}
