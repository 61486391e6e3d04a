import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPromptsCli } from './prompts-cli.js';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sidegate-prompts-cli-'));
  await mkdir(join(dir, 'greet'));
  await writeFile(join(dir, 'greet/1.json'), JSON.stringify({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'Hi {{name}}' }] }));
  await writeFile(
    join(dir, 'greet/2.yaml'),
    'model: gemini-2.5-pro\nparams: {temperature: 0.5}\nmessages:\n  - {role: user, content: "Hello {{name}}, {{n}} {{#items}}[{{.}}]{{/items}}"}\n',
  );
  await writeFile(join(dir, 'greet/labels.json'), '{"production": 1}');
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function run(argv: string[], env: Record<string, string> = { SIDEGATE_PROMPTS_DIR: dir }) {
  let stdout = '';
  let stderr = '';
  const sink = (add: (s: string) => void) =>
    new Writable({
      write(chunk, _enc, done) {
        add(String(chunk));
        done();
      },
    });
  const code = await runPromptsCli(argv, { stdout: sink((s) => (stdout += s)), stderr: sink((s) => (stderr += s)), env });
  return { code, stdout, stderr };
}

describe('sidegate prompts', () => {
  it('list shows ids, versions and labels', async () => {
    expect(await run(['list'])).toStrictEqual({ code: 0, stdout: 'greet\tlatest 2\tversions 1,2\tlabels production=1\n', stderr: '' });
  });

  it('show prints the template of a version or label', async () => {
    const { code, stdout } = await run(['show', 'greet', '--label', 'production']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toStrictEqual({ id: 'greet', version: 1, model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'Hi {{name}}' }] });
  });

  it('render prints the chat-completions body, with --var strings and --vars JSON', async () => {
    const { code, stdout } = await run(['render', 'greet', '--var', 'name=Ada <3', '--vars', '{"n": 2, "items": ["a", "b"]}']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toStrictEqual({
      model: 'gemini-2.5-pro',
      temperature: 0.5,
      messages: [{ role: 'user', content: 'Hello Ada <3, 2 [a][b]' }],
    });
  });

  it('errors name what is wrong, exit 1', async () => {
    expect(await run(['render', 'greet', '--version', '1'])).toStrictEqual({
      code: 1,
      stdout: '',
      stderr: "sidegate prompts: Missing required variable 'name' for prompt 'greet' version 1 (variables.name)\n",
    });
    expect((await run(['show', 'nope'])).stderr).toBe("sidegate prompts: No prompt named 'nope'\n");
    expect((await run(['show', 'greet', '--label', 'x', '--version', '1'])).code).toBe(2);
    expect((await run(['frobnicate'])).code).toBe(2);
  });

  it('list exits 1 and names each file that would not be served (for CI on a prompt repository)', async () => {
    const bad = await mkdtemp(join(tmpdir(), 'sidegate-prompts-cli-bad-'));
    try {
      await mkdir(join(bad, 'x'));
      await writeFile(join(bad, 'x/1.json'), '{"messages": [{"role": "user", "content": "{{#a}}"}]}');
      expect(await run(['list', '--dir', bad], {})).toStrictEqual({
        code: 1,
        stdout: `no prompts in ${bad}\n`,
        stderr: 'not served: x/1.json at messages[0].content: invalid Mustache: Unclosed section "a" at 6\n',
      });
    } finally {
      await rm(bad, { recursive: true, force: true });
    }
  });
});
