/**
 * The `sidegate` binary as a user runs it: `npm start` → `node dist/main.js serve`. Builds dist
 * first so the test never runs stale output.
 */
import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';

const root = new URL('../..', import.meta.url).pathname;

beforeAll(() => {
  execFileSync(process.execPath, [`${root}node_modules/typescript/bin/tsc`, '-p', 'tsconfig.build.json'], { cwd: root });
}, 120_000);

function run(args: string[], env: Record<string, string> = {}): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, ['dist/main.js', ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', OTEL_SDK_DISABLED: 'true', ...env },
  });
}

function collect(child: ChildProcessWithoutNullStreams) {
  const out = { stdout: '', stderr: '' };
  child.stdout.on('data', (d) => (out.stdout += d));
  child.stderr.on('data', (d) => (out.stderr += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { out, exited };
}

async function waitFor(predicate: () => boolean, what: string) {
  for (let i = 0; i < 200 && !predicate(); i++) await new Promise((r) => setTimeout(r, 50));
  if (!predicate()) throw new Error(`timed out waiting for ${what}`);
}

describe('sidegate serve', () => {
  it('stops at start with one line naming a bad variable', async () => {
    const { out, exited } = collect(run(['serve'], { SIDEGATE_PORT: 'not-a-port' }));
    expect(await exited).toBe(2);
    expect(out.stderr.trim().split('\n')).toHaveLength(1);
    expect(out.stderr).toContain('SIDEGATE_PORT');
  });

  it('takes --port, prints a generated key once, answers with it, and drains on SIGTERM', async () => {
    const child = run(['serve', '--port', '0']);
    const { out, exited } = collect(child);
    await waitFor(() => /gateway key for this run: \S+/.test(out.stdout), 'startup lines');
    const url = /listening on (http:\/\/\S+)/.exec(out.stdout)![1]!;
    const key = /gateway key for this run: (\S+)/.exec(out.stdout)![1]!;

    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    const denied = await fetch(`${url}/v1/chat/completions`, { method: 'POST', body: '{}' });
    expect(denied.status).toBe(401);
    const accepted = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': key, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(accepted.status).toBe(400); // past auth, refused by validation

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(out.stdout.split(key).length - 1).toBe(1); // printed exactly once
    expect(out.stderr).not.toContain(key);
  });

  it('stops with one line when the gateway cannot start (bad master key)', async () => {
    const { out, exited } = collect(run(['serve', '--port', '0'], { SIDEGATE_MASTER_KEY: 'too-short', SIDEGATE_API_KEYS: 'k' }));
    expect(await exited).toBe(2);
    expect(out.stderr.trim().split('\n')).toHaveLength(1);
    expect(out.stderr).toContain('SIDEGATE_MASTER_KEY');
    expect(out.stderr).not.toContain('too-short');
  });

  it('npm run demo: emulator + gateway + sample traffic, offline, and says what happened', async () => {
    const { out, exited } = collect(run(['demo'], { OTEL_SDK_DISABLED: 'false' }));
    expect(await exited).toBe(0);
    expect(out.stdout).toMatch(/1\. plain request\n {3}HTTP 200 {2}finish_reason=stop/);
    expect(out.stdout).toContain('last: data: [DONE]');
    expect(out.stdout).toMatch(/retried by a routing config[^\n]*\n {3}HTTP 200 {2}x-gateway-retry-attempt-count=1 {2}traceparent=00-[0-9a-f]{32}-[0-9a-f]{16}-01/);
    expect(out.stdout).toMatch(/pass through\n {3}HTTP 503 {2}retry-after=1/);
    expect(out.stdout).toMatch(/bad input never reaches upstream\n {3}HTTP 400/);
    expect(out.stdout).toMatch(/Gemini on Vertex AI[^\n]*\n {3}HTTP 200 {2}content: "Echo: hello from Vertex"\n {3}upstream: POST \/v1\/projects\/sidegate-emulator\/locations\/us-central1\/publishers\/google\/models\/gemini-2\.5-flash:generateContent/);
  });

  it('answers --help and refuses unknown commands', async () => {
    const help = collect(run(['--help']));
    expect(await help.exited).toBe(0);
    expect(help.out.stdout).toContain('usage: sidegate');
    const bad = collect(run(['frobnicate']));
    expect(await bad.exited).toBe(2);
  });
});
