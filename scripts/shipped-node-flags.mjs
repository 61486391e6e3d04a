// The Node/V8 flags sidegate ships with: those of `npm start` in package.json, which the image's
// ENTRYPOINT repeats (test/e2e/deploy-files.test.ts checks the two agree). The benchmark and the
// fault run start the gateway with exactly these, so they measure the process users run.
import { readFileSync } from 'node:fs';

const packageJson = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

/** e.g. `['--single-threaded-gc', '--no-allocation-site-pretenuring']`: the words of the start script between `node` and the script. */
export const SHIPPED_NODE_FLAGS = Object.freeze(
  packageJson.scripts.start
    .split(/\s+/)
    .slice(1)
    .filter((word) => word.startsWith('--')),
);
