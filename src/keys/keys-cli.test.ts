import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runKeysCli } from './keys-cli.js';
import { STORE_FILE, virtualKeyStoreFromSettings } from './virtual-key-store.js';

const SECRET = 'test-only-key-not-real-9876';
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sidegate-cli-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

async function run(argv: string[], stdin = '', env: Record<string, string> = {}) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => (out += c.toString()));
  stderr.on('data', (c: Buffer) => (err += c.toString()));
  const code = await runKeysCli(argv, { stdin: Readable.from([stdin]), stdout, stderr, env: { SIDEGATE_DATA_DIR: dir, ...env } });
  return { code, out, err };
}

describe('runKeysCli', () => {
  it('adds with the key from stdin, lists without it, removes', async () => {
    const added = await run(['add', 'gem', '--provider', 'google'], `${SECRET}\n`);
    expect(added).toStrictEqual({ code: 0, out: 'added gem (google, key …9876)\n', err: '' });
    expect(await readFile(join(dir, STORE_FILE), 'utf8')).not.toContain(SECRET);

    const store = await virtualKeyStoreFromSettings({ dataDir: dir });
    expect(store.get('gem')?.apiKey).toBe(SECRET);
    store.close();

    await run(['add', 'oai', '--provider=openai', '--custom-host', 'http://127.0.0.1:9000'], 'short\n');
    const listed = await run(['list']);
    expect(listed.code).toBe(0);
    expect(listed.out).not.toContain(SECRET);
    expect(listed.out.split('\n')[0]).toMatch(/^SLUG\s+PROVIDER\s+KEY\s+CUSTOM HOST\s+CREATED$/);
    expect(listed.out).toMatch(/^gem\s+google\s+…9876\s+-\s+\d{4}-/m);
    expect(listed.out).toMatch(/^oai\s+openai\s+-\s+http:\/\/127\.0\.0\.1:9000\s+\d{4}-/m);

    expect(await run(['rm', 'gem'])).toStrictEqual({ code: 0, out: 'removed gem\n', err: '' });
    expect((await run(['list'])).out).not.toMatch(/^gem/m);
  });

  it('adds Vertex AI keys: a service-account key file piped in whole, or nothing for the pod\'s ADC', async () => {
    const keyFile = JSON.stringify(
      {
        type: 'service_account',
        project_id: 'my-proj',
        private_key: '-----BEGIN PRIVATE KEY-----\nMIIEvQ-not-a-real-key\n-----END PRIVATE KEY-----\n',
        client_email: 'gw@my-proj.iam.gserviceaccount.com',
      },
      null,
      2,
    );
    expect(await run(['add', 'vsa', '--provider', 'vertex-ai', '--vertex-region', 'europe-west4'], keyFile)).toStrictEqual({ code: 0, out: 'added vsa (vertex-ai)\n', err: '' });
    expect(await run(['add', 'vadc', '--provider', 'vertex-ai', '--vertex-project-id', 'other-proj'], '')).toStrictEqual({ code: 0, out: 'added vadc (vertex-ai)\n', err: '' });
    const raw = await readFile(join(dir, STORE_FILE), 'utf8');
    expect(raw).not.toContain('PRIVATE KEY');
    expect(raw).not.toContain('gw@my-proj');
    const store = await virtualKeyStoreFromSettings({ dataDir: dir });
    expect(store.get('vsa')).toStrictEqual({
      slug: 'vsa',
      provider: 'vertex-ai',
      apiKey: '',
      vertex: { projectId: 'my-proj', region: 'europe-west4', serviceAccountJson: keyFile },
    });
    expect(store.get('vadc')).toStrictEqual({ slug: 'vadc', provider: 'vertex-ai', apiKey: '', vertex: { projectId: 'other-proj' } });
    store.close();
    const refused = await run(['add', 'bad', '--provider', 'vertex-ai'], '{"type":"authorized_user"}');
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('service-account key field type is invalid');
  });

  it('lists an empty store', async () => {
    expect(await run(['list'])).toStrictEqual({ code: 0, out: 'no virtual keys\n', err: '' });
  });

  it.each([
    { name: 'no command', argv: [], code: 2, err: /usage/ },
    { name: 'unknown command', argv: ['rotate'], code: 2, err: /unknown command/ },
    { name: 'key on the command line', argv: ['add', 'gem', '--provider', 'google', '--api-key', SECRET], code: 2, err: /stdin/ },
    { name: 'missing provider', argv: ['add', 'gem'], code: 2, err: /--provider/ },
    { name: 'missing slug', argv: ['add', '--provider', 'google'], code: 2, err: /one slug/ },
    { name: 'bad provider', argv: ['add', 'gem', '--provider', 'azure'], code: 1, err: /invalid virtual key/ },
    { name: 'rm unknown slug', argv: ['rm', 'nope'], code: 1, err: /no virtual key nope/ },
  ])('fails on $name', async ({ argv, code, err }) => {
    const result = await run(argv, `${SECRET}\n`);
    expect(result.code).toBe(code);
    expect(result.err).toMatch(err);
    expect(result.err).not.toContain(SECRET);
  });

  it('refuses an empty stdin', async () => {
    const result = await run(['add', 'gem', '--provider', 'google'], '');
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/no API key on stdin/);
  });

  it('refuses changes in read-only mode but lists the mounted keys', async () => {
    const file = join(dir, 'keys.json');
    await writeFile(file, JSON.stringify([{ slug: 'mounted', provider: 'google', api_key: SECRET }]));
    const env = { SIDEGATE_VIRTUAL_KEYS_FILE: file };
    expect((await run(['add', 'x', '--provider', 'google'], 'k\n', env)).err).toMatch(/read-only/);
    expect((await run(['rm', 'mounted'], '', env)).code).toBe(1);
    expect((await run(['list'], '', env)).out).toMatch(/^mounted\s+google/m);
  });

  it('reports a bad master key clearly', async () => {
    const result = await run(['list'], '', { SIDEGATE_MASTER_KEY: 'hunter2' });
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/SIDEGATE_MASTER_KEY must be 32 random bytes/);
  });
});
