/**
 * Every code block in README.md and docs/*.md that is meant to run still runs.
 *
 * Each fenced block is classified by its info string:
 * - `sh` / `bash` / `shell`: executed with bash against a gateway started in-process with the
 *   Gemini emulator as upstream (`localhost:8787` becomes that gateway's address). `curl` is
 *   wrapped with `--fail-with-body`, so an example answered with a 4xx or 5xx fails here, and
 *   `sidegate` on PATH is this repository's CLI (its own build under .cache/, so it never races
 *   the CLI suite's dist/).
 * - `ts` / `typescript`: type-checked (strict, as the repository's code) with `openai`,
 *   `sidegate/client`, `sidegate/langchain` and `sidegate/llamaindex` resolving to this
 *   repository; the few names a snippet takes as given (the `client` of "Calling it", …) are
 *   declared in AMBIENT below.
 * - `json` and `yaml`: parsed; a `yaml file=<path>` block is also written to <path> in the shell
 *   examples' working directory, so the examples that follow it use it.
 * - `text`: an illustration (output, a diagram), not code.
 * A block that cannot run offline (docker, kubectl, npm itself) says `no-run` after its language
 * (```sh no-run). Anything else (no language, an unknown one) fails the suite, as does a relative
 * link to a missing file or heading, or an `OTEL_*`/`SIDEGATE_*` variable the docs do not list.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HONOURED_OTEL_VARIABLES } from '../../src/telemetry/read-otel-config.js';
import { startHarness, type Harness } from './harness.js';

const root = new URL('../..', import.meta.url).pathname;
const cliBuild = `${root}.cache/test-build/docs-examples`;
const tsDir = `${root}.cache/docs-examples-ts`;
const GATEWAY_KEY = 'dev-gateway-key';
const ADMIN_KEY = 'docs-examples-admin-key';
const GEMINI_API_KEY = 'docs-examples-provider-key';

interface Block {
  file: string; // relative to the repository
  line: number; // of the opening fence, 1-based
  lang: string;
  flags: string[];
  code: string;
}

const SHELL = new Set(['sh', 'bash', 'shell']);
const TYPESCRIPT = new Set(['ts', 'typescript']);

function extractBlocks(file: string, text: string): Block[] {
  const blocks: Block[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(`{3,})(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const [lang = '', ...flags] = open[2]!.trim().split(/\s+/).filter(Boolean);
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !lines[i]!.startsWith(open[1]!); i++) body.push(lines[i]!);
    blocks.push({ file, line: start + 1, lang, flags, code: body.join('\n') });
  }
  return blocks;
}

const pages = [
  'README.md',
  ...(await readdir(join(root, 'docs')))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];
const texts = new Map(await Promise.all(pages.map(async (p) => [p, await readFile(join(root, p), 'utf8')] as const)));
const blocks = pages.flatMap((p) => extractBlocks(p, texts.get(p)!));
const where = (b: Block) => `${b.file}:${b.line}`;
const runnable = (b: Block) => !b.flags.includes('no-run');

describe('code blocks in the README and docs/', () => {
  it('each says what it is: a language this suite runs or checks, text, or no-run', () => {
    const known = new Set([...SHELL, ...TYPESCRIPT, 'json', 'yaml', 'text']);
    const unmarked = blocks.filter((b) => !known.has(b.lang)).map((b) => `${where(b)} (\`\`\`${b.lang})`);
    expect(unmarked).toStrictEqual([]);
    expect(blocks.filter((b) => SHELL.has(b.lang) && runnable(b)).length).toBeGreaterThan(3);
    expect(blocks.filter((b) => TYPESCRIPT.has(b.lang) && runnable(b)).length).toBeGreaterThan(5);
  });

  it('json and yaml blocks parse', () => {
    const problems: string[] = [];
    for (const b of blocks.filter((b) => b.lang === 'json' || b.lang === 'yaml')) {
      try {
        if (b.lang === 'json') JSON.parse(b.code);
        else parseYaml(b.code);
      } catch (err) {
        problems.push(`${where(b)}: ${(err as Error).message}`);
      }
    }
    expect(problems).toStrictEqual([]);
  });
});

/** Names the guide's snippets take as given: the SDK client of "Calling it", and a request's parts. */
const AMBIENT = `
declare var client: import('openai').OpenAI;
declare var messages: import('openai').OpenAI.Chat.ChatCompletionMessageParam[];
declare var config: Record<string, unknown>;
declare var body: import('openai').OpenAI.Chat.ChatCompletionCreateParamsNonStreaming;
declare var chain: { invoke(input: unknown, options?: unknown): Promise<unknown> };
declare var input: unknown;
declare var apiKey: string;
declare var providerKey: string;
`;

describe('TypeScript blocks', () => {
  it('type-check', { timeout: 120_000 }, async () => {
    const checked = blocks.filter((b) => TYPESCRIPT.has(b.lang) && runnable(b));
    await rm(tsDir, { recursive: true, force: true });
    await mkdir(tsDir, { recursive: true });
    const fileOf = new Map<string, Block>();
    for (const b of checked) {
      const name = join(tsDir, `${b.file.replace(/[/.]/g, '-')}-${b.line}.ts`);
      // `export {}` makes each block a module of its own: top-level await, no shared names.
      await writeFile(name, `${b.code}\nexport {};\n`);
      fileOf.set(name, b);
    }
    await writeFile(join(tsDir, 'ambient.d.ts'), AMBIENT);
    const program = ts.createProgram([...fileOf.keys(), join(tsDir, 'ambient.d.ts')], {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
      types: ['node'],
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      esModuleInterop: true,
      baseUrl: root,
      paths: {
        'sidegate/client': ['src/client/index.ts'],
        'sidegate/langchain': ['src/client/langchain.ts'],
        'sidegate/llamaindex': ['src/client/llamaindex.ts'],
      },
    });
    const problems = ts
      .getPreEmitDiagnostics(program)
      .filter((d) => d.file && fileOf.has(d.file.fileName))
      .map((d) => {
        const b = fileOf.get(d.file!.fileName)!;
        const { line } = d.file!.getLineAndCharacterOfPosition(d.start ?? 0);
        return `${b.file}:${b.line + 1 + line}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
      });
    expect(problems).toStrictEqual([]);
  });
});

describe('shell blocks, against the gateway and the emulator', () => {
  let harness: Harness;
  let sandbox: string;

  beforeAll(async () => {
    execFileSync(process.execPath, [`${root}node_modules/typescript/bin/tsc`, '-p', 'tsconfig.build.json', '--outDir', cliBuild], { cwd: root });
    sandbox = await mkdtemp(join(tmpdir(), 'sidegate-docs-examples-'));
    await mkdir(join(sandbox, 'bin'));
    await writeFile(join(sandbox, 'bin', 'sidegate'), `#!/bin/sh\nexec "${process.execPath}" "${cliBuild}/main.js" "$@"\n`, { mode: 0o755 });
    for (const b of blocks.filter((b) => b.lang === 'yaml')) {
      const file = b.flags.find((f) => f.startsWith('file='))?.slice('file='.length);
      if (!file) continue;
      await mkdir(dirname(join(sandbox, file)), { recursive: true });
      await writeFile(join(sandbox, file), `${b.code}\n`);
    }
    harness = await startHarness({
      apiKeys: [GATEWAY_KEY],
      adminKey: ADMIN_KEY,
      dataDir: join(sandbox, 'data'),
      promptsDir: join(sandbox, 'prompts'),
    });
  }, 120_000);
  afterAll(async () => {
    await harness?.close();
    if (sandbox) await rm(sandbox, { recursive: true, force: true });
  });

  // In page order: a later block may use what an earlier one stored (a virtual key, a prompt).
  const shellBlocks = blocks.filter((b) => SHELL.has(b.lang) && runnable(b));
  it.each(shellBlocks.map((b) => ({ name: where(b), block: b })))('$name runs', { timeout: 60_000 }, async ({ block }) => {
    const address = new URL(harness.gateway.url).host;
    const script = `set -euo pipefail
curl() { command curl -sS --fail-with-body "$@"; echo; }
${block.code.replaceAll('localhost:8787', address)}
`;
    const env = {
      PATH: `${join(sandbox, 'bin')}:${process.env.PATH ?? ''}`,
      HOME: sandbox,
      GEMINI_API_KEY,
      VLLM_KEY: 'docs-examples-vllm-key', // the OpenAI-compatible endpoint's key in docs/routing.md
      SIDEGATE_ADMIN_KEY: ADMIN_KEY,
      SIDEGATE_DATA_DIR: join(sandbox, 'data'),
      SIDEGATE_PROMPTS_DIR: join(sandbox, 'prompts'),
      SIDEGATE_GEMINI_BASE_URL: harness.emulator.url,
      OTEL_SDK_DISABLED: 'true',
    };
    const result = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile('bash', ['-c', script], { cwd: sandbox, env, timeout: 50_000 }, (err, stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
    expect({ exit: result.code, stderr: result.stderr }, `${where(block)}\n${result.stdout}`).toStrictEqual({ exit: 0, stderr: '' });
  });
});

describe('links and variables', () => {
  const slug = (heading: string) =>
    heading
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
  const withoutCode = (text: string) => text.replace(/^(`{3,})[^\n]*\n[\s\S]*?^\1/gm, '');
  const anchors = (text: string) =>
    new Set(
      withoutCode(text)
        .split('\n')
        .filter((l) => /^#{1,6} /.test(l))
        .map((l) => slug(l.replace(/^#+ /, ''))),
    );

  it('every relative link names a file and heading that exist', async () => {
    const broken: string[] = [];
    for (const [page, text] of texts) {
      const prose = withoutCode(text);
      for (const [, target] of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        const [path, anchor] = target!.split('#');
        const file = path ? join(dirname(join(root, page)), path) : join(root, page);
        const text2 = await readFile(file, 'utf8').catch(() => undefined);
        if (text2 === undefined) broken.push(`${page}: ${target} (no such file)`);
        else if (anchor && file.endsWith('.md') && !anchors(text2).has(anchor)) broken.push(`${page}: ${target} (no such heading in ${relative(root, file)})`);
      }
    }
    expect(broken).toStrictEqual([]);
  });

  it('every source path the docs name exists', () => {
    const missing: string[] = [];
    for (const [page, text] of texts) {
      for (const [path] of text.matchAll(/\b(?:src|test|bench|faults|deploy|scripts)\/[\w./-]*\.(?:ts|mjs|json|ya?ml|sh)\b/g)) {
        // Reports the bench and fault runs write (results/) are outputs, not sources.
        if (!path.includes('/results/') && !existsSync(join(root, path))) missing.push(`${page}: ${path}`);
      }
    }
    expect(missing).toStrictEqual([]);
  });

  it('the README and docs/tracing.md list every OTEL_* variable the gateway reads', () => {
    for (const page of ['README.md', 'docs/tracing.md']) {
      expect(HONOURED_OTEL_VARIABLES.filter((v) => !texts.get(page)!.includes(`\`${v}\``)), page).toStrictEqual([]);
    }
  });

  it('docs/configuration.md lists every SIDEGATE_* variable the gateway reads', async () => {
    // The client library's own variables (SIDEGATE_API_KEY) are the client's, documented in docs/clients.md.
    const sources = (await readdir(join(root, 'src'), { recursive: true }))
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.startsWith('client/'))
      .map((f) => join(root, 'src', f));
    const read = new Set<string>();
    for (const f of sources) for (const [, v] of (await readFile(f, 'utf8')).matchAll(/['"`](SIDEGATE_[A-Z_]+)['"`]/g)) read.add(v!);
    expect(read.size).toBeGreaterThan(20);
    expect([...read].filter((v) => !texts.get('docs/configuration.md')!.includes(`\`${v}\``)).sort()).toStrictEqual([]);
  });
});
