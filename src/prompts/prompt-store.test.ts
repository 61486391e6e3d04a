import { mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { GatewayError } from '../errors.js';
import { openPromptStore, type PromptStore } from './prompt-store.js';
import { renderPrompt } from './render-prompt.js';

let dir: string;
let store: PromptStore | undefined;
const warnings: string[] = [];
const logger = { warn: (m: string) => warnings.push(m) };

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sidegate-prompts-'));
  warnings.length = 0;
});
afterEach(async () => {
  store?.close();
  store = undefined;
  await rm(dir, { recursive: true, force: true });
});

async function put(path: string, content: unknown): Promise<void> {
  await mkdir(join(dir, path, '..'), { recursive: true });
  await writeFile(join(dir, path), typeof content === 'string' ? content : JSON.stringify(content));
}

const greeting = (text: string) => ({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: text }] });

function errorOf(fn: () => unknown): { status: number; param: string | null; code: string | null; message: string } {
  try {
    fn();
  } catch (err) {
    if (err instanceof GatewayError) return { status: err.status, param: err.param, code: err.code, message: err.message };
    throw err;
  }
  throw new Error('did not throw');
}

async function rejectionOf(p: Promise<unknown>) {
  try {
    await p;
  } catch (err) {
    if (err instanceof GatewayError) return { status: err.status, param: err.param, code: err.code, message: err.message };
    throw err;
  }
  throw new Error('did not reject');
}

describe('prompt store, from files', () => {
  it('serves JSON and YAML versions and labels, latest by default', async () => {
    await put('greet/1.json', greeting('Hello {{name}}'));
    await put('greet/2.yaml', 'model: gemini-2.5-pro\nmessages:\n  - role: system\n    content: |\n      Be brief.\n  - role: user\n    content: "Hi {{name}}"\n');
    await put('greet/labels.json', { production: 1, staging: 2 });
    await put('tone/1.yml', 'messages: [{role: system, content: "Be kind."}]\n');
    store = await openPromptStore({ dir, logger });
    expect(store.problems()).toStrictEqual([]);
    expect(store.list()).toStrictEqual([
      { id: 'greet', latest_version: 2, versions: [1, 2], labels: { production: 1, staging: 2 } },
      { id: 'tone', latest_version: 1, versions: [1], labels: {} },
    ]);
    expect(store.resolve('greet').version.template.model).toBe('gemini-2.5-pro');
    expect(store.resolve('greet').version.template.messages[0]).toStrictEqual({ role: 'system', content: 'Be brief.\n' });
    expect(store.resolve('greet', { label: 'production' }).version.template.version).toBe(1);
    expect(store.resolve('greet', { label: 'production' }).label).toBe('production');
    expect(store.resolve('greet', { version: 2 }).version.source).toBe('greet/2.yaml');
  });

  it('404s name the unknown prompt, version or label', async () => {
    await put('greet/1.json', greeting('Hi'));
    store = await openPromptStore({ dir, logger });
    expect(errorOf(() => store!.resolve('nope'))).toStrictEqual({ status: 404, param: null, code: 'prompt_not_found', message: "No prompt named 'nope'" });
    expect(errorOf(() => store!.resolve('greet', { version: 7 }))).toStrictEqual({
      status: 404,
      param: 'version',
      code: 'prompt_version_not_found',
      message: "Prompt 'greet' has no version 7",
    });
    expect(errorOf(() => store!.resolve('greet', { label: 'production' }))).toStrictEqual({
      status: 404,
      param: 'label',
      code: 'prompt_label_not_found',
      message: "Prompt 'greet' has no label 'production'",
    });
  });

  it('never serves an invalid file, and reports each with its file and JSON path', async () => {
    await put('ok/1.json', greeting('fine'));
    await put('ok/2.json', { messages: [{ role: 'user', content: '{{#open}}' }] });
    await put('ok/3.json', '{ not json');
    await put('ok/4.json', greeting('a'));
    await put('ok/4.yaml', 'messages: [{role: user, content: b}]');
    await put('ok/5.json', greeting('{{> missing}}'));
    await put('ok/6.json', { ...greeting('x'), params: { temperature: 5 } });
    await put('ok/v7.json', greeting('x'));
    await put('ok/labels.json', { production: 2, staging: 1 });
    await put('bad id!/1.json', greeting('x'));
    store = await openPromptStore({ dir, logger });
    expect(store.list()).toStrictEqual([{ id: 'ok', latest_version: 1, versions: [1], labels: { staging: 1 } }]);
    const problems = store.problems().map((p) => `${p.file} | ${p.path} | ${p.message}`);
    expect(problems).toStrictEqual([
      expect.stringMatching(/^bad id!\/1\.json \|  \| directory name is not a prompt id/),
      'ok/2.json | messages[0].content | invalid Mustache: Unclosed section "open" at 9',
      expect.stringMatching(/^ok\/3\.json \|  \| not valid JSON: /),
      'ok/4.yaml |  | version 4 of ok is also defined by ok/4.json; neither is served',
      'ok/6.json | params.temperature | Too big: expected number to be <=2',
      expect.stringMatching(/^ok\/v7\.json \|  \| expected \{version\}\.json/),
      'ok/5.json | messages[0].content | partial {{> missing}} in ok/5.json names no prompt version',
      'ok/labels.json | production | label production points at version 2 of ok, which is not served',
    ]);
    expect(warnings.length).toBe(problems.length);
    expect(warnings[1]).toBe('prompts: not serving ok/2.json at messages[0].content: invalid Mustache: Unclosed section "open" at 9');
    expect(errorOf(() => store!.resolve('ok', { version: 2 })).status).toBe(404);
  });

  it('drops a version whose partial is dropped, and resolves id, id@version and id@label partials', async () => {
    await put('snip/1.json', { messages: [{ role: 'system', content: 'one' }] });
    await put('snip/2.json', { messages: [{ role: 'system', content: 'two' }] });
    await put('snip/labels.json', { production: 1 });
    await put('use/1.json', greeting('{{> snip}}|{{> snip@1}}|{{> snip@production}}'));
    await put('broken/1.json', { messages: [{ role: 'system', content: '{{#x}}' }] });
    await put('user-of-broken/1.json', greeting('{{> broken}}'));
    await put('chain/1.json', greeting('{{> user-of-broken}}'));
    store = await openPromptStore({ dir, logger });
    expect(store.list().map((p) => p.id)).toStrictEqual(['snip', 'use']);
    const r = store.resolve('use');
    const m = renderPrompt(r.version, {}, r.resolvePartial).messages[0]!;
    expect('content' in m && m.content).toBe('two|one|one');
  });

  it('follows a ConfigMap-style layout (symlinked directories, dot entries ignored)', async () => {
    await put('..2026_11_23/greet/1.json', greeting('from configmap'));
    await symlink('..2026_11_23', join(dir, '..data'));
    await symlink(join('..data', 'greet'), join(dir, 'greet'));
    store = await openPromptStore({ dir, logger });
    expect(store.problems()).toStrictEqual([]);
    expect(store.list().map((p) => p.id)).toStrictEqual(['greet']);
  });

  it('reloads when a file changes: a label moved from 1 to 2 picks version 2', async () => {
    await put('greet/1.json', greeting('v1'));
    await put('greet/2.json', greeting('v2'));
    await put('greet/labels.json', { production: 1 });
    let reloads = 0;
    store = await openPromptStore({ dir, logger, onReload: () => reloads++ });
    expect(store.resolve('greet', { label: 'production' }).version.template.version).toBe(1);
    const before = reloads;
    await put('greet/labels.json', { production: 2 });
    await vi.waitFor(() => expect(reloads).toBeGreaterThan(before), { timeout: 10_000, interval: 20 });
    expect(store.resolve('greet', { label: 'production' }).version.template.version).toBe(2);
  });

  it('a reload that finds a broken file keeps serving the others and reports it', async () => {
    await put('a/1.json', greeting('a'));
    store = await openPromptStore({ dir, logger });
    await put('b/1.json', '{');
    await store.reload();
    expect(store.list().map((p) => p.id)).toStrictEqual(['a']);
    expect(store.problems().map((p) => p.file)).toStrictEqual(['b/1.json']);
  });

  it('starts on a directory that does not exist yet', async () => {
    store = await openPromptStore({ dir: join(dir, 'not-yet'), logger });
    expect(store.list()).toStrictEqual([]);
    expect(store.writable).toBe(true);
  });

  it('starts empty (the template parser not loaded yet), then serves the first YAML template and its label once they appear', async () => {
    store = await openPromptStore({ dir, logger });
    expect(store.list()).toStrictEqual([]);
    await put('greet/1.yaml', 'model: gemini-2.5-flash\nmessages:\n  - role: user\n    content: "Hi {{name}}"\n');
    await put('greet/labels.json', { production: 1 });
    await store.reload();
    const resolved = store.resolve('greet', { label: 'production' });
    expect(renderPrompt(resolved.version, { name: 'Ada' }, resolved.resolvePartial).messages).toStrictEqual([{ role: 'user', content: 'Hi Ada' }]);
    expect(warnings).toStrictEqual([]);
  });
});

describe('prompt store, writes', () => {
  it('creates version 1, then the next, never replacing a file; labels must name a version', async () => {
    store = await openPromptStore({ dir: join(dir, 'prompts'), logger });
    const v1 = await store.create({ id: 'greet', ...greeting('Hi {{name}}') });
    expect(v1.template).toStrictEqual({ id: 'greet', version: 1, ...greeting('Hi {{name}}') });
    const v2 = await store.create({ id: 'greet', ...greeting('Hello {{name}}'), params: { temperature: 0.1 } });
    expect(v2.template.version).toBe(2);
    expect(JSON.parse(await readFile(join(dir, 'prompts/greet/2.json'), 'utf8'))).toStrictEqual({
      id: 'greet',
      version: 2,
      ...greeting('Hello {{name}}'),
      params: { temperature: 0.1 },
    });
    expect(await rejectionOf(store.create({ id: 'greet', version: 2, ...greeting('x') }))).toMatchObject({
      status: 409,
      param: 'version',
      code: 'prompt_version_conflict',
    });

    expect(await store.setLabels('greet', { production: 1 })).toStrictEqual({ production: 1 });
    expect(store.resolve('greet', { label: 'production' }).version.template.version).toBe(1);
    expect(await store.setLabels('greet', { production: 2, staging: 2 })).toStrictEqual({ production: 2, staging: 2 });
    expect(JSON.parse(await readFile(join(dir, 'prompts/greet/labels.json'), 'utf8'))).toStrictEqual({ production: 2, staging: 2 });
    expect(await rejectionOf(store.setLabels('greet', { production: 3 }))).toMatchObject({ status: 400, param: 'production', code: 'prompt_version_not_found' });
    expect(await rejectionOf(store.setLabels('greet', { '9bad': 1 }))).toMatchObject({ status: 400, param: '9bad', code: 'invalid_labels' });
    expect(await rejectionOf(store.setLabels('nope', { production: 1 }))).toMatchObject({ status: 404, code: 'prompt_not_found' });
    // No temp file is left behind.
    expect((await readdir(join(dir, 'prompts/greet'))).sort()).toStrictEqual(['1.json', '2.json', 'labels.json']);
  });

  it('the next version skips numbers taken by invalid files', async () => {
    await put('greet/1.json', greeting('ok'));
    await put('greet/2.json', '{broken');
    store = await openPromptStore({ dir, logger });
    expect((await store.create({ id: 'greet', ...greeting('new') })).template.version).toBe(3);
  });

  it('refuses an invalid template with the JSON path as param', async () => {
    store = await openPromptStore({ dir, logger });
    expect(await rejectionOf(store.create({ id: 'greet', messages: [{ role: 'user', content: '{{#a}}' }] }))).toMatchObject({
      status: 400,
      param: 'messages[0].content',
      code: 'invalid_prompt',
    });
    expect(await rejectionOf(store.create({ id: 'greet', ...greeting('x'), params: { top_p: 3 } }))).toMatchObject({ param: 'params.top_p' });
    expect(await rejectionOf(store.create({ id: 'greet', ...greeting('{{> nothing}}') }))).toMatchObject({ param: 'messages', code: 'invalid_prompt' });
    expect(await rejectionOf(store.create({ id: '../etc', ...greeting('x') }))).toMatchObject({ param: 'id', status: 400 });
    expect(await readdir(dir)).toStrictEqual([]);
  });

  it('concurrent creates get distinct versions', async () => {
    store = await openPromptStore({ dir, logger });
    const made = await Promise.all([1, 2, 3, 4].map((i) => store!.create({ id: 'p', ...greeting(`v${i}`) })));
    expect(made.map((v) => v.template.version).sort()).toStrictEqual([1, 2, 3, 4]);
  });

  it('read-only: writes answer 409 and nothing is written', async () => {
    await put('greet/1.json', greeting('x'));
    store = await openPromptStore({ dir, logger, readOnly: true });
    expect(store.writable).toBe(false);
    expect(await rejectionOf(store.create({ id: 'greet', ...greeting('y') }))).toMatchObject({ status: 409, code: 'prompts_read_only' });
    expect(await rejectionOf(store.setLabels('greet', { production: 1 }))).toMatchObject({ status: 409, code: 'prompts_read_only' });
    expect(await readdir(join(dir, 'greet'))).toStrictEqual(['1.json']);
  });
});
