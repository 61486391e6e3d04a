/**
 * What `sidegate serve` loads at start (issue 11, idle RSS): a sidecar that serves chat
 * completions must not compile or hold the other front doors. Runs the real program (its own
 * build under .cache/, so it never races the CLI suite's dist/) with a module loader hook that
 * writes down every module URL the ESM loader loads, serves one chat completion, and checks the
 * list; then one Responses call must add its modules, which shows the hook sees dynamic imports.
 */
import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';

const root = new URL('../..', import.meta.url).pathname;
const outDir = `${root}.cache/test-build/start-imports`;
const GATEWAY_KEY = 'start-imports-gateway-key';

/** Modules of the front doors other than chat, and what only they use. */
const NOT_AT_START = [
  '/embeddings/embeddings-route.js',
  '/models/models-route.js',
  '/logs/logs-route.js',
  '/feedback/feedback-route.js',
  '/traces/traces-route.js',
  '/traces/jaeger-reader.js',
  '/traces/read-summaries.js',
  '/responses/responses-route.js',
  '/responses/to-chat-request.js',
  '/responses/responses-request.js',
  '/prompts/prompt-routes.js',
  // the template parser: no prompts directory here, so nothing to parse
  '/prompts/build-snapshot.js',
  '/prompts/prompt-template.js',
  '/node_modules/yaml/',
  '/node_modules/mustache/',
  '/files/files-route.js',
  '/node_modules/busboy/',
  // the Traces view: only its route table (traces-view-paths.js) is declared at start
  '/traces-view/traces-view-routes.js',
  '/traces-view/render-trace.js',
  '/traces-view/render-trace-list.js',
  '/traces-view/view-style.js',
  '/traces-view/ui-session.js',
  '/traces-view/html.js',
  // Vertex AI and Google's auth library: loaded by the first Vertex call only (issue 22)
  '/providers/vertex/vertex-provider.js',
  '/providers/google-auth/google-credentials.js',
  '/node_modules/google-auth-library/',
  '/node_modules/gaxios/',
  '/node_modules/gcp-metadata/',
];

let emulator: Emulator;
let dir: string;
let child: ChildProcessWithoutNullStreams | undefined;

beforeAll(async () => {
  execFileSync(process.execPath, [`${root}node_modules/typescript/bin/tsc`, '-p', 'tsconfig.build.json', '--outDir', outDir], { cwd: root });
  emulator = await startEmulator({ port: 0 });
  dir = await mkdtemp(join(tmpdir(), 'sidegate-imports-'));
  await writeFile(
    join(dir, 'hooks.mjs'),
    `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  appendFileSync(${JSON.stringify(join(dir, 'loaded.txt'))}, url + '\\n');
  return next(url, context);
}
`,
  );
  await writeFile(join(dir, 'register.mjs'), `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)});\n`);
  // Writes the young generation's capacity when the process exits.
  await writeFile(
    join(dir, 'young-generation.mjs'),
    `import { writeFileSync } from 'node:fs';
import { getHeapSpaceStatistics } from 'node:v8';
process.on('exit', () => {
  const space = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
  writeFileSync(process.env.YOUNG_GENERATION_OUT, JSON.stringify(space));
});
`,
  );
}, 120_000);
afterAll(async () => {
  child?.kill('SIGKILL');
  await emulator?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const loaded = async () => (await readFile(join(dir, 'loaded.txt'), 'utf8')).split('\n').filter(Boolean);

describe('sidegate serve at start', () => {
  it('loads chat completions and none of the other front doors until one is asked for', { timeout: 60_000 }, async () => {
    child = spawn(process.execPath, ['--import', pathToFileURL(join(dir, 'register.mjs')).href, `${outDir}/main.js`, 'serve', '--port', '0'], {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/tmp',
        SIDEGATE_API_KEYS: GATEWAY_KEY,
        SIDEGATE_GEMINI_BASE_URL: emulator.url,
        SIDEGATE_DATA_DIR: dir,
        // The exporter is loaded, as in a real pod; nothing needs to listen.
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9',
      },
    });
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += d));
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    for (let i = 0; i < 900 && !/listening on/.test(stdout); i++) await new Promise((r) => setTimeout(r, 50));
    const url = /listening on (http:\/\/\S+)/.exec(stdout)?.[1];
    expect(url, stderr).toBeDefined();
    const headers = { 'content-type': 'application/json', 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-provider': 'google', authorization: 'Bearer provider-key' };

    const chat = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(chat.status).toBe(200);
    const atStart = await loaded();
    expect(atStart.some((u) => u.endsWith('/chat-completions/chat-completions-route.js'))).toBe(true);
    expect(NOT_AT_START.filter((m) => atStart.some((u) => u.includes(m)))).toStrictEqual([]);

    const responses = await fetch(`${url}/v1/responses`, { method: 'POST', headers, body: JSON.stringify({ model: 'gemini-2.5-flash', input: 'hi' }) });
    expect(responses.status).toBe(200);
    const after = await loaded();
    expect(after.some((u) => u.endsWith('/responses/responses-route.js'))).toBe(true);

    // The Traces view loads on its first page.
    const signIn = await fetch(`${url}/ui/`);
    expect(signIn.status).toBe(200);
    expect(await signIn.text()).toContain('action="/ui/sign-in"');
    expect((await loaded()).some((u) => u.endsWith('/traces-view/traces-view-routes.js'))).toBe(true);
  });
});

/** `sidegate serve` with `nodeArgs`, five chat completions, SIGTERM: the young generation's capacity at exit. */
async function youngGenerationAfterFiveRequests(nodeArgs: string[], name: string): Promise<number> {
  const out = join(dir, `${name}.json`);
  const serve = spawn(process.execPath, ['--import', pathToFileURL(join(dir, 'young-generation.mjs')).href, ...nodeArgs, `${outDir}/main.js`, 'serve', '--port', '0'], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      SIDEGATE_API_KEYS: GATEWAY_KEY,
      SIDEGATE_GEMINI_BASE_URL: emulator.url,
      SIDEGATE_DATA_DIR: dir,
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9',
      YOUNG_GENERATION_OUT: out,
    },
  });
  let stdout = '';
  serve.stdout.on('data', (d) => (stdout += d));
  let stderr = '';
  serve.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => serve.once('exit', (code) => resolve(code)));
  for (let i = 0; i < 900 && !/listening on/.test(stdout); i++) await new Promise((r) => setTimeout(r, 50));
  const url = /listening on (http:\/\/\S+)/.exec(stdout)?.[1];
  expect(url, stderr).toBeDefined();
  for (let i = 0; i < 5; i++) {
    const res = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-provider': 'google', authorization: 'Bearer provider-key' },
      body: JSON.stringify({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(200);
  }
  serve.kill('SIGTERM');
  expect(await exited).toBe(0);
  return (JSON.parse(await readFile(out, 'utf8')) as { space_size: number }).space_size;
}

describe('sidegate serve and V8 young generation', () => {
  it('starts with its young generation held at its initial size (server/hold-young-generation.ts)', { timeout: 120_000 }, async () => {
    // Control: the same process with V8's default growth factor given on the command line, which
    // the hold leaves alone; start-up alone grows the young generation to its maximum then.
    const grown = await youngGenerationAfterFiveRequests(['--semi-space-growth-factor=2'], 'default-growth');
    const held = await youngGenerationAfterFiveRequests([], 'held');
    expect(held).toBeLessThan(grown / 2);
  });
});
