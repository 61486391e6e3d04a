/**
 * The real browser of the end-to-end suites: Debian's `chromium` (installed by .ci/run when
 * missing), driven by `playwright-core` with `executablePath`; no browser is ever downloaded.
 * When it is missing the suite skips with a loud message, except with CI=true, where it fails.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

const CANDIDATES = [process.env.SIDEGATE_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter((p): p is string => p !== undefined && p !== '');

/** Path of the Chromium binary, or null (after a loud warning) when there is none and CI is not set. */
export function findChromium(): string | null {
  const path = CANDIDATES.find((p) => existsSync(p));
  if (path !== undefined) return path;
  const message = `\n\n!!! end-to-end: no Chromium at ${CANDIDATES.join(', ')}, so the browser suite is SKIPPED (apt-get install -y chromium) !!!\n`;
  if (process.env.CI === 'true') throw new Error(message);
  console.warn(message);
  return null;
}

export function launchChromium(executablePath: string): Promise<Browser> {
  // Headless, no sandbox (CI runs as root), no first-run or background network chatter.
  return chromium.launch({
    executablePath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', '--disable-background-networking', '--disable-component-update'],
  });
}
