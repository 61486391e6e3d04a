/**
 * The package as a user installs it: `sidegate/client` (and its types) resolve through the
 * package.json `exports` map from a built copy, with `openai` as the user's own dependency.
 * Builds into a temporary directory so it never races the CLI suite's build of dist/.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = new URL('../../..', import.meta.url).pathname;
let pkg: string;

beforeAll(() => {
  pkg = mkdtempSync(join(tmpdir(), 'sidegate-pkg-'));
  execFileSync(process.execPath, [`${root}node_modules/typescript/bin/tsc`, '-p', 'tsconfig.build.json', '--outDir', join(pkg, 'dist')], { cwd: root });
  cpSync(join(root, 'package.json'), join(pkg, 'package.json'));
  symlinkSync(join(root, 'node_modules'), join(pkg, 'node_modules'));
}, 120_000);
afterAll(() => rmSync(pkg, { recursive: true, force: true }));

describe('package exports', () => {
  it('exposes sidegate/client, sidegate/langchain and sidegate/llamaindex with typings', () => {
    const out = execFileSync(
      process.execPath,
      ['--input-type=module', '-e', "import * as m from 'sidegate/client'; console.log(Object.keys(m).sort().join(','))"],
      { cwd: pkg, env: { PATH: process.env.PATH ?? '' } },
    ).toString();
    expect(out.trim()).toBe('DEFAULT_BASE_URL,SidegateClient,createClient,createHeaders,sidegate');
    const handlers = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "import { SidegateCallbackHandler } from 'sidegate/langchain'; import { SidegateLlamaIndexHandler } from 'sidegate/llamaindex'; console.log(typeof SidegateCallbackHandler, typeof SidegateLlamaIndexHandler)",
      ],
      { cwd: pkg, env: { PATH: process.env.PATH ?? '' } },
    ).toString();
    expect(handlers.trim()).toBe('function function');
    const exportsMap = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')).exports as Record<string, { types: string; default: string }>;
    for (const [name, entry] of Object.entries(exportsMap)) {
      if (typeof entry === 'string') continue;
      expect(existsSync(join(pkg, entry.types)), `${name} types`).toBe(true);
      expect(existsSync(join(pkg, entry.default)), `${name} code`).toBe(true);
    }
  });

  it('type-checks a user program against the built typings', () => {
    writeFileSync(
      join(pkg, 'user.ts'),
      [
        "import { createClient, sidegate } from 'sidegate/client';",
        "const client = createClient({ apiKey: 'k', provider: 'google', metadata: { user_name: 'ana' } });",
        "async function main(): Promise<string | null> {",
        "  const c = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }, sidegate({ traceId: 't' }));",
        "  await client.logs.insert({ request: { method: 'GET' }, metadata: { traceId: 't' } });",
        "  return c.choices[0]!.message.content;",
        '}',
        'void main;',
      ].join('\n'),
    );
    writeFileSync(
      join(pkg, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true, noEmit: true, skipLibCheck: true, types: ['node'] }, files: ['user.ts'] }),
    );
    execFileSync(process.execPath, [`${root}node_modules/typescript/bin/tsc`, '-p', 'tsconfig.json'], { cwd: pkg });
  });
});
