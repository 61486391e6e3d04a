/**
 * What `npm run build` puts in `dist/` (the published package): production sources only, never
 * tests or their helpers (issue 16: `emulator/test-helpers.ts` was shipped). Asks tsc for the
 * file list of the build config without compiling.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

describe('build', () => {
  it('compiles no test file and no test helper into dist/', { timeout: 180_000 }, async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json', '--listFilesOnly']);
    const ours = stdout.split('\n').filter((f) => f.includes('/src/'));
    expect(ours.length).toBeGreaterThan(50);
    expect(ours.filter((f) => /\.test\.ts$|test-helpers|\/test\//.test(f))).toStrictEqual([]);
  });
});
