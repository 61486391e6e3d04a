import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  MASTER_KEY_FILE,
  parseMasterKey,
  STORE_FILE,
  virtualKeyStoreFromSettings,
  VirtualKeyStoreError,
  type VirtualKeyStore,
  type VirtualKeyStoreSettings,
} from './virtual-key-store.js';

// Obviously fake credentials.
const GOOGLE_KEY = 'test-google-key-0000-abcd';
const OPENAI_KEY = 'test-openai-key-1111-wxyz';

let dir: string;
const opened: VirtualKeyStore[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sidegate-keys-'));
});
afterEach(async () => {
  for (const store of opened.splice(0)) store.close();
  await rm(dir, { recursive: true, force: true });
});

async function open(settings: Partial<VirtualKeyStoreSettings> = {}): Promise<VirtualKeyStore> {
  const store = await virtualKeyStoreFromSettings({ dataDir: dir, logger: { warn: () => {} }, ...settings });
  opened.push(store);
  return store;
}

describe('writable store', () => {
  it('adds, lists without secrets, gets, removes', async () => {
    const store = await open();
    const info = await store.add({ slug: 'gem', provider: 'google', api_key: GOOGLE_KEY });
    await store.add({ slug: 'oai', provider: 'openai', api_key: 'short', custom_host: 'http://127.0.0.1:9000' });
    expect(info).toStrictEqual({ slug: 'gem', provider: 'google', created_at: expect.any(String), key_hint: '…abcd' });
    expect(store.list()).toStrictEqual([
      { slug: 'gem', provider: 'google', created_at: info.created_at, key_hint: '…abcd' },
      { slug: 'oai', provider: 'openai', custom_host: 'http://127.0.0.1:9000', created_at: expect.any(String) },
    ]);
    expect(JSON.stringify(store.list())).not.toContain(GOOGLE_KEY);
    expect(store.get('gem')).toStrictEqual({ slug: 'gem', provider: 'google', apiKey: GOOGLE_KEY });
    expect(store.get('oai')).toStrictEqual({ slug: 'oai', provider: 'openai', apiKey: 'short', customHost: 'http://127.0.0.1:9000' });
    await store.remove('gem');
    expect(store.get('gem')).toBeUndefined();
    expect(store.list().map((k) => k.slug)).toStrictEqual(['oai']);
  });

  it('persists encrypted, with 0600 files, and reopens with the same key file', async () => {
    const store = await open();
    await store.add({ slug: 'gem', provider: 'google', api_key: GOOGLE_KEY });
    const onDisk = await readFile(join(dir, STORE_FILE), 'utf8');
    expect(onDisk).not.toContain(GOOGLE_KEY);
    expect(onDisk).not.toContain('gem');
    expect((await stat(join(dir, STORE_FILE))).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, MASTER_KEY_FILE))).mode & 0o777).toBe(0o600);

    const reopened = await open();
    expect(reopened.get('gem')?.apiKey).toBe(GOOGLE_KEY);
  });

  it('uses SIDEGATE_MASTER_KEY instead of a key file, and refuses a different key', async () => {
    const masterKey = randomBytes(32).toString('hex');
    const store = await open({ masterKey });
    await store.add({ slug: 'gem', provider: 'google', api_key: GOOGLE_KEY });
    await expect(stat(join(dir, MASTER_KEY_FILE))).rejects.toMatchObject({ code: 'ENOENT' });
    expect((await open({ masterKey })).get('gem')?.apiKey).toBe(GOOGLE_KEY);
    await expect(open({ masterKey: randomBytes(32).toString('base64') })).rejects.toThrow(/cannot decrypt/);
  });

  it('a crash between write and rename leaves the previous store intact', async () => {
    let crash = false;
    const store = await open({
      writeFileAtomic: async (path, data, options) => {
        const { writeFileAtomic } = await import('./write-file-atomic.js');
        return writeFileAtomic(path, data, {
          ...options,
          rename: async (from, to) => {
            if (crash) throw new Error('simulated crash before rename');
            await rename(from, to);
          },
        });
      },
    });
    await store.add({ slug: 'gem', provider: 'google', api_key: GOOGLE_KEY });
    const before = await readFile(join(dir, STORE_FILE), 'utf8');

    crash = true;
    await expect(store.add({ slug: 'oai', provider: 'openai', api_key: OPENAI_KEY })).rejects.toThrow(/simulated crash/);
    await expect(store.remove('gem')).rejects.toThrow(/simulated crash/);

    expect(await readFile(join(dir, STORE_FILE), 'utf8')).toBe(before);
    expect((await readdir(dir)).filter((f) => f.endsWith('.tmp'))).toStrictEqual([]);
    expect(store.list().map((k) => k.slug)).toStrictEqual(['gem']);
    expect((await open()).list().map((k) => k.slug)).toStrictEqual(['gem']);
  });

  it('ignores a temp file left by a crash', async () => {
    const store = await open();
    await store.add({ slug: 'gem', provider: 'google', api_key: GOOGLE_KEY });
    await writeFile(join(dir, `.${STORE_FILE}.123.abc.tmp`), '{"torn');
    expect((await open()).get('gem')?.apiKey).toBe(GOOGLE_KEY);
  });

  it('sees a change made by another process (the CLI)', async () => {
    const server = await open();
    const cli = await open();
    await cli.add({ slug: 'gem', provider: 'google', api_key: GOOGLE_KEY });
    await server.reload();
    expect(server.get('gem')?.apiKey).toBe(GOOGLE_KEY);
    // A write from the server keeps the CLI's key (read-modify-write).
    await server.add({ slug: 'oai', provider: 'openai', api_key: OPENAI_KEY });
    expect((await open()).list().map((k) => k.slug)).toStrictEqual(['gem', 'oai']);
  });

  it('a change another process makes right after an add is still seen', async () => {
    const cli = await open();
    let cliAddsAfterWrite = true;
    const server = await open({
      writeFileAtomic: async (path, data, options) => {
        const { writeFileAtomic } = await import('./write-file-atomic.js');
        await writeFileAtomic(path, data, options);
        if (cliAddsAfterWrite) {
          cliAddsAfterWrite = false;
          await cli.add({ slug: 'oai', provider: 'openai', api_key: OPENAI_KEY }); // before the add returns
        }
      },
    });
    await server.add({ slug: 'gem', provider: 'google', api_key: GOOGLE_KEY });
    await server.reload(); // what the CLI's write makes the watcher (or the poll) do
    expect(server.list().map((k) => k.slug)).toStrictEqual(['gem', 'oai']);
    expect(server.get('oai')?.apiKey).toBe(OPENAI_KEY);
  });

  it('serializes concurrent adds', async () => {
    const store = await open();
    await Promise.all(['a', 'b', 'c', 'd'].map((slug) => store.add({ slug, provider: 'google', api_key: GOOGLE_KEY })));
    expect((await open()).list().map((k) => k.slug)).toStrictEqual(['a', 'b', 'c', 'd']);
  });


  it('a reload that read the file before an add lands does not take the new key back', async () => {
    // The file watcher's reload can read the store, then return only after an admin add has
    // been answered; the add's key must stay usable (CI once saw a 401 for a key just added).
    // gem is written by another store first, so this one's watcher has seen no change yet and
    // the held read below is the explicit reload's, not a watcher reload's or the add's.
    const writer = await open();
    await writer.add({ slug: 'gem', provider: 'google', api_key: GOOGLE_KEY });
    writer.close();
    let holdNextRead = false;
    let release = () => {};
    const store = await open({
      readFile: async (path) => {
        // Claimed before the first await, so the held read is the one asked for first.
        const hold = holdNextRead;
        holdNextRead = false;
        const raw = await readFile(path, 'utf8');
        if (hold) await new Promise<void>((resolve) => (release = resolve));
        return raw;
      },
    });
    holdNextRead = true;
    const reloading = store.reload(); // reads the store holding only gem, and is held
    await store.add({ slug: 'oai', provider: 'openai', api_key: OPENAI_KEY });
    expect(store.get('oai')?.apiKey).toBe(OPENAI_KEY);
    release();
    await reloading;
    expect(store.list().map((k) => k.slug)).toStrictEqual(['gem', 'oai']);
    expect(store.get('oai')?.apiKey).toBe(OPENAI_KEY);
  });
  const invalid: Array<{ name: string; input: unknown; param: string | null }> = [
    { name: 'bad slug', input: { slug: '../x', provider: 'google', api_key: GOOGLE_KEY }, param: 'slug' },
    { name: 'unknown provider', input: { slug: 'x', provider: 'azure', api_key: GOOGLE_KEY }, param: 'provider' },
    { name: 'empty key', input: { slug: 'x', provider: 'google', api_key: '' }, param: 'api_key' },
    { name: 'key with a newline', input: { slug: 'x', provider: 'google', api_key: 'abc\ndef' }, param: 'api_key' },
    { name: 'bad custom host', input: { slug: 'x', provider: 'google', api_key: GOOGLE_KEY, custom_host: 'file:///etc' }, param: 'custom_host' },
    { name: 'unknown field', input: { slug: 'x', provider: 'google', api_key: GOOGLE_KEY, region: 'eu' }, param: 'region' },
    { name: 'not an object', input: 'x', param: null },
  ];

  it.each(invalid)('rejects $name with 400', async ({ input, param }) => {
    const store = await open();
    const err = await store.add(input).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ status: 400, param, code: 'invalid_virtual_key' });
    expect(String((err as Error).message)).not.toContain(GOOGLE_KEY);
  });

  it('refuses a duplicate slug (409) and an unknown one on remove (404)', async () => {
    const store = await open();
    await store.add({ slug: 'gem', provider: 'google', api_key: GOOGLE_KEY });
    await expect(store.add({ slug: 'gem', provider: 'google', api_key: OPENAI_KEY })).rejects.toMatchObject({ status: 409 });
    await expect(store.remove('nope')).rejects.toMatchObject({ status: 404 });
    expect(store.get('gem')?.apiKey).toBe(GOOGLE_KEY);
  });

  it('creates no data dir and no key file until the first add', async () => {
    const dataDir = join(dir, 'not-yet');
    const store = await open({ dataDir });
    expect(store.list()).toStrictEqual([]);
    await expect(stat(dataDir)).rejects.toMatchObject({ code: 'ENOENT' });
    await store.add({ slug: 'gem', provider: 'google', api_key: GOOGLE_KEY });
    expect((await stat(join(dataDir, MASTER_KEY_FILE))).mode & 0o777).toBe(0o600);
    expect(store.get('gem')?.apiKey).toBe(GOOGLE_KEY);
  });

  it('fails at startup on a master key file that is not a key', async () => {
    await writeFile(join(dir, MASTER_KEY_FILE), 'not a key');
    await expect(open()).rejects.toBeInstanceOf(VirtualKeyStoreError);
  });
});

describe('parseMasterKey', () => {
  const bytes = randomBytes(32);
  it.each([
    { name: 'hex', value: bytes.toString('hex') },
    { name: 'upper-case hex', value: bytes.toString('hex').toUpperCase() },
    { name: 'base64', value: bytes.toString('base64') },
    { name: 'base64url', value: bytes.toString('base64url') },
    { name: 'with a trailing newline', value: `${bytes.toString('base64')}\n` },
  ])('accepts $name', ({ value }) => {
    expect(parseMasterKey(value).equals(bytes)).toBe(true);
  });

  it.each([
    { name: 'too short hex', value: bytes.toString('hex').slice(2) },
    { name: '16 bytes base64', value: randomBytes(16).toString('base64') },
    { name: 'a passphrase', value: 'correct horse battery staple' },
    { name: 'empty', value: '' },
  ])('rejects $name naming the variable', ({ value }) => {
    expect(() => parseMasterKey(value)).toThrow(/SIDEGATE_MASTER_KEY/);
  });

  it('is a clear startup error from the factory', async () => {
    await expect(virtualKeyStoreFromSettings({ dataDir: dir, masterKey: 'nope' })).rejects.toThrow(VirtualKeyStoreError);
  });
});

describe('read-only keys file', () => {
  const entries = [
    { slug: 'gem', provider: 'google', api_key: GOOGLE_KEY },
    { slug: 'oai', provider: 'openai', api_key: OPENAI_KEY, custom_host: 'http://localhost:9000' },
  ];

  /** `onReload` for the settings, and a way to await the next reload that found changed contents. */
  function reloadWatcher() {
    let resolve: ((r: { ok: boolean }) => void) | undefined;
    return {
      onReload: (r: { ok: boolean }) => resolve?.(r),
      next: () => new Promise<{ ok: boolean }>((r) => (resolve = r)),
    };
  }

  it('loads keys and refuses writes', async () => {
    const file = join(dir, 'keys.json');
    await writeFile(file, JSON.stringify(entries));
    const store = await open({ keysFile: file });
    expect(store.readOnly).toBe(true);
    expect(store.get('oai')).toStrictEqual({ slug: 'oai', provider: 'openai', apiKey: OPENAI_KEY, customHost: 'http://localhost:9000' });
    expect(store.list().map((k) => k.slug)).toStrictEqual(['gem', 'oai']);
    await expect(store.add({ slug: 'x', provider: 'google', api_key: GOOGLE_KEY })).rejects.toMatchObject({
      status: 409,
      code: 'virtual_keys_read_only',
    });
    await expect(store.remove('gem')).rejects.toMatchObject({ status: 409 });
  });

  it('fails at startup on an invalid or missing file, without echoing keys', async () => {
    const file = join(dir, 'keys.json');
    await writeFile(file, JSON.stringify([{ slug: 'gem', provider: 'bedrock', api_key: GOOGLE_KEY }]));
    const err = await open({ keysFile: file }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VirtualKeyStoreError);
    expect((err as Error).message).toMatch(/\[0\]\.provider/);
    expect((err as Error).message).not.toContain(GOOGLE_KEY);
    await expect(open({ keysFile: join(dir, 'missing.json') })).rejects.toBeInstanceOf(VirtualKeyStoreError);
    await writeFile(file, JSON.stringify([entries[0], entries[0]]));
    await expect(open({ keysFile: file })).rejects.toThrow(/duplicate slug/);
  });

  it('reloads on a Kubernetes-style symlink swap, and keeps the old keys on a bad update', async () => {
    // Layout of a mounted Secret: keys.json -> ..data/keys.json, ..data -> ..v1
    const mount = join(dir, 'mount');
    await mkdir(join(mount, '..v1'), { recursive: true });
    await writeFile(join(mount, '..v1', 'keys.json'), JSON.stringify([entries[0]]));
    await symlink('..v1', join(mount, '..data'));
    await symlink(join('..data', 'keys.json'), join(mount, 'keys.json'));

    const warnings: string[] = [];
    const watcher = reloadWatcher();
    const store = await open({
      keysFile: join(mount, 'keys.json'),
      pollIntervalMs: 200,
      logger: { warn: (m) => warnings.push(m) },
      onReload: watcher.onReload,
    });
    let reloaded = watcher.next();
    expect(store.list().map((k) => k.slug)).toStrictEqual(['gem']);

    const swap = async (version: string, contents: string) => {
      await mkdir(join(mount, version));
      await writeFile(join(mount, version, 'keys.json'), contents);
      await symlink(version, join(mount, '..tmp'));
      await rename(join(mount, '..tmp'), join(mount, '..data'));
    };

    await swap('..v2', JSON.stringify(entries));
    expect(await reloaded).toStrictEqual({ ok: true });
    expect(store.get('oai')?.apiKey).toBe(OPENAI_KEY);

    reloaded = watcher.next();
    await swap('..v3', '[{"slug": "broken"');
    expect(await reloaded).toMatchObject({ ok: false });
    expect(store.list().map((k) => k.slug)).toStrictEqual(['gem', 'oai']);
    expect(warnings.join('\n')).toMatch(/keeping the 2 previous keys/);
    expect(warnings.join('\n')).not.toContain(OPENAI_KEY);

    reloaded = watcher.next();
    await swap('..v4', JSON.stringify([entries[1]]));
    expect(await reloaded).toStrictEqual({ ok: true });
    expect(store.list().map((k) => k.slug)).toStrictEqual(['oai']);
  });
});
