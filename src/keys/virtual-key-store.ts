/**
 * Virtual keys: provider credentials stored once under a slug, so clients say `@slug` and never
 * hold the key. Two modes, chosen at startup:
 *
 * - Writable (default): `{dataDir}/virtual-keys.enc`, the whole key list encrypted with
 *   AES-256-GCM. The 32-byte master key comes from `SIDEGATE_MASTER_KEY` (base64 or hex), else
 *   from `{dataDir}/master.key`, generated on first use with mode 0600. Every change is written
 *   atomically (temp file, fsync, rename), so a crash never leaves a torn or empty store.
 * - Read-only (`SIDEGATE_VIRTUAL_KEYS_FILE`): a plaintext JSON array
 *   `[{"slug","provider","api_key","custom_host"?}]`, typically a mounted Kubernetes Secret
 *   (the Secret protects it). Reloaded when it changes; a bad reload keeps the previous keys.
 *
 * In both modes the file is watched (`watch-for-changes.ts`), so a `sidegate keys add` shows up
 * in a running gateway. Encryption and the master key live in `encrypt-key-store.ts`, the keys
 * file format in `parse-keys-file.ts`; this module is the store itself (load, reload, serialized
 * writes). Secrets leave it only through `get()`; `list()` shows at most the last 4 characters.
 */
import { mkdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ConflictError, InvalidRequestError, NotFoundError } from '../errors.js';
import { oneRunAtATime } from '../one-run-at-a-time.js';
import { looksLikeSecret } from '../scrub-secrets.js';
import { innermostIssue, issueParam } from '../issue-param.js';
import type { ProviderName } from '../providers/provider.js';
import { decryptStore, encryptStore, loadOrCreateKeyFile, parseMasterKey } from './encrypt-key-store.js';
import { parseKeysFile } from './parse-keys-file.js';
import { toStoredKey, VirtualKeyInputSchema, VirtualKeyStoreError, type StoredKey } from './stored-key.js';
import { watchForChanges } from './watch-for-changes.js';
import { writeFileAtomic } from './write-file-atomic.js';

export { parseKeysFile } from './parse-keys-file.js';
export { parseMasterKey } from './encrypt-key-store.js';
export { VirtualKeyStoreError } from './stored-key.js';


/** What `add` takes (the admin route's body and the CLI's fields). */
export interface VirtualKeyInput {
  slug: string;
  provider: ProviderName;
  api_key?: string | undefined;
  custom_host?: string | undefined;
  vertex_project_id?: string | undefined;
  vertex_region?: string | undefined;
  vertex_service_account_json?: string | undefined;
}

/** What `list` shows: never the secret. */
export interface VirtualKeyInfo {
  slug: string;
  provider: ProviderName;
  custom_host?: string;
  vertex_project_id?: string;
  vertex_region?: string;
  /** True when the key holds a service-account key (never shown). */
  vertex_service_account?: boolean;
  created_at: string;
  /** `…` plus the key's last 4 characters, only for keys long enough that this reveals little. */
  key_hint?: string;
}

/** A resolved key, for routing only; `apiKey` goes nowhere but to its provider. */
export interface VirtualKey {
  slug: string;
  provider: ProviderName;
  apiKey: string;
  customHost?: string;
  /** Vertex AI project, region and service-account key (provider `vertex-ai`). */
  vertex?: { projectId?: string; region?: string; serviceAccountJson?: string };
}

export interface VirtualKeyStore {
  /** True when keys come from `SIDEGATE_VIRTUAL_KEYS_FILE`; `add`/`remove` then throw 409. */
  readonly readOnly: boolean;
  /** Validates (400 with `param`), refuses a duplicate slug (409), persists, returns the listing. */
  add(input: unknown): Promise<VirtualKeyInfo>;
  list(): VirtualKeyInfo[];
  /** Throws `NotFoundError` (404) for an unknown slug. */
  remove(slug: string): Promise<void>;
  get(slug: string): VirtualKey | undefined;
  /** Re-reads the file now (also done automatically when it changes). */
  reload(): Promise<void>;
  /** Stops watching. */
  close(): void;
}

export interface VirtualKeyStoreSettings {
  dataDir: string;
  /** `SIDEGATE_MASTER_KEY`: 32 bytes, base64 (44 chars) or hex (64 chars). */
  masterKey?: string | undefined;
  /** `SIDEGATE_VIRTUAL_KEYS_FILE`: read-only mode. */
  keysFile?: string | undefined;
  /** Poll fallback for change detection. Default 10 s. */
  pollIntervalMs?: number;
  logger?: { warn(message: string): void };
  /** Called after each reload attempt that found changed contents. */
  onReload?: (result: { ok: true } | { ok: false; error: string }) => void;
  /** Injected for crash tests. */
  writeFileAtomic?: typeof writeFileAtomic;
  /** Injected for race tests (a read that returns late). */
  readFile?: (path: string) => Promise<string>;
}

export const STORE_FILE = 'virtual-keys.enc';
export const MASTER_KEY_FILE = 'master.key';

/** Builds the store the settings ask for. Throws `VirtualKeyStoreError` on a startup problem. */
export async function virtualKeyStoreFromSettings(settings: VirtualKeyStoreSettings): Promise<VirtualKeyStore> {
  const log = settings.logger ?? { warn: (m: string) => console.warn(m) };
  if (settings.keysFile !== undefined) {
    const file = settings.keysFile;
    const source: KeySource = {
      readOnly: true,
      file,
      async load(raw) {
        const mtime = (await stat(file)).mtime.toISOString();
        return parseKeysFile(raw, mtime);
      },
    };
    return openStore(source, settings, log);
  }
  const file = join(settings.dataDir, STORE_FILE);
  const keyFile = join(settings.dataDir, MASTER_KEY_FILE);
  // The data dir and a generated key file are created on first write, not at startup, so a
  // gateway that never stores a key leaves nothing behind. Whatever already exists (or
  // SIDEGATE_MASTER_KEY) is checked at startup, so a bad key still fails the start.
  let masterKey: Promise<Buffer> | undefined;
  const key = (): Promise<Buffer> =>
    (masterKey ??=
      settings.masterKey !== undefined
        ? Promise.resolve(parseMasterKey(settings.masterKey))
        : mkdir(settings.dataDir, { recursive: true, mode: 0o700 }).then(() => loadOrCreateKeyFile(keyFile)));
  if (settings.masterKey !== undefined || (await exists(keyFile)) || (await exists(file))) await key();
  const write = settings.writeFileAtomic ?? writeFileAtomic;
  const source: KeySource = {
    readOnly: false,
    file,
    load: async (raw) => decryptStore(raw, await key()),
    async save(keys) {
      const raw = encryptStore(keys, await key());
      await write(file, raw, { mode: 0o600 });
      return raw;
    },
  };
  return openStore(source, settings, log);
}

interface KeySource {
  readOnly: boolean;
  file: string;
  /** Parses raw file contents; throws with a message safe to log (never a key). */
  load(raw: string): Promise<StoredKey[]>;
  /** Writes the keys; resolves to the file's contents as written. */
  save?(keys: StoredKey[]): Promise<string>;
}

async function openStore(
  source: KeySource,
  settings: VirtualKeyStoreSettings,
  log: { warn(message: string): void },
): Promise<VirtualKeyStore> {
  let keys = new Map<string, StoredKey>();
  let lastRaw: string | undefined;
  // Bumped by every write, so a reload that read the file before the write lands cannot put the
  // older keys back (an add answered 201 must be usable by the very next request).
  let writes = 0;
  const read = settings.readFile ?? ((path: string) => readFile(path, 'utf8'));

  const readRaw = async (): Promise<string | undefined> => {
    try {
      return await read(source.file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' && !source.readOnly) return undefined;
      throw new VirtualKeyStoreError(`cannot read ${source.file}: ${(err as Error).message}`);
    }
  };

  const loadFromDisk = async (): Promise<{ raw: string | undefined; list: StoredKey[] }> => {
    const raw = await readRaw();
    return { raw, list: raw === undefined ? [] : await source.load(raw) };
  };

  // Startup: any problem is fatal, naming the file.
  try {
    const initial = await loadFromDisk();
    keys = toMap(initial.list);
    lastRaw = initial.raw;
  } catch (err) {
    if (err instanceof VirtualKeyStoreError) throw err;
    throw new VirtualKeyStoreError(`${source.file}: ${(err as Error).message}`);
  }

  let lastBadRaw: string | undefined;
  // A change may land after the running reload read the file: oneRunAtATime reads once more.
  const reload = oneRunAtATime(async () => {
    const writesBefore = writes;
    try {
      const raw = await readRaw();
      if (writes !== writesBefore || raw === lastRaw || raw === lastBadRaw) return;
      try {
        const list = raw === undefined ? [] : await source.load(raw);
        if (writes !== writesBefore) return;
        keys = toMap(list);
        lastRaw = raw;
        lastBadRaw = undefined;
        settings.onReload?.({ ok: true });
      } catch (err) {
        lastBadRaw = raw;
        const message = `virtual keys: ignoring invalid ${source.file} (keeping the ${keys.size} previous keys): ${(err as Error).message}`;
        log.warn(message);
        settings.onReload?.({ ok: false, error: message });
      }
    } catch (err) {
      // Mid-swap a Secret's file can be briefly missing; the next event or poll retries.
      log.warn(`virtual keys: ${(err as Error).message}`);
    }
  });

  const stopWatching = watchForChanges(source.file, () => void reload(), settings.pollIntervalMs ?? 10_000);

  let queue: Promise<unknown> = Promise.resolve();
  /** Serializes writes; each reads the file first so a concurrent CLI change is not lost. */
  const mutate = <T>(change: (current: Map<string, StoredKey>) => T): Promise<T> => {
    const run = queue.then(async () => {
      if (source.readOnly || !source.save) {
        throw new ConflictError('virtual keys are read-only here (loaded from SIDEGATE_VIRTUAL_KEYS_FILE)', {
          code: 'virtual_keys_read_only',
        });
      }
      const current = toMap((await loadFromDisk()).list);
      const result = change(current);
      const list = [...current.values()];
      // What was written, not a read of the file after it: a change another process (the CLI)
      // makes right after this write must still look new to the reload its event starts.
      lastRaw = await source.save(list);
      keys = current;
      writes++;
      return result;
    });
    queue = run.catch(() => {});
    return run;
  };

  return {
    readOnly: source.readOnly,
    async add(input) {
      const parsed = VirtualKeyInputSchema.safeParse(input);
      if (!parsed.success) {
        const issue = innermostIssue(parsed.error.issues[0]!);
        const param = issueParam(issue) || null;
        throw new InvalidRequestError(`invalid virtual key: ${issue.code === 'unrecognized_keys' ? `unknown field ${param}` : issue.message}`, {
          param,
          code: 'invalid_virtual_key',
        });
      }
      const value = parsed.data;
      return mutate((current) => {
        if (current.has(value.slug)) {
          throw new ConflictError(`virtual key ${value.slug} already exists; remove it first`, {
            param: 'slug',
            code: 'virtual_key_exists',
          });
        }
        const stored = toStoredKey(value, new Date().toISOString());
        current.set(value.slug, stored);
        return toInfo(stored);
      });
    },
    list() {
      return [...keys.values()].map(toInfo).sort((a, b) => a.slug.localeCompare(b.slug));
    },
    async remove(slug) {
      await mutate((current) => {
        if (!current.delete(slug)) {
          throw new NotFoundError(looksLikeSecret(slug) ? 'no such virtual key' : `no virtual key ${slug}`, {
            param: 'slug',
            code: 'virtual_key_not_found',
          });
        }
      });
    },
    get(slug) {
      const k = keys.get(slug);
      if (!k) return undefined;
      return {
        slug: k.slug,
        provider: k.provider,
        apiKey: k.api_key,
        ...(k.custom_host !== undefined ? { customHost: k.custom_host } : {}),
        ...(k.provider === 'vertex-ai' ? { vertex: vertexFields(k) } : {}),
      };
    },
    reload,
    close: stopWatching,
  };
}

function toMap(list: readonly StoredKey[]): Map<string, StoredKey> {
  return new Map(list.map((k) => [k.slug, k]));
}

function vertexFields(k: StoredKey): NonNullable<VirtualKey['vertex']> {
  return {
    ...(k.vertex_project_id !== undefined ? { projectId: k.vertex_project_id } : {}),
    ...(k.vertex_region !== undefined ? { region: k.vertex_region } : {}),
    ...(k.vertex_service_account_json !== undefined ? { serviceAccountJson: k.vertex_service_account_json } : {}),
  };
}

function toInfo(k: StoredKey): VirtualKeyInfo {
  return {
    slug: k.slug,
    provider: k.provider,
    ...(k.custom_host !== undefined ? { custom_host: k.custom_host } : {}),
    ...(k.vertex_project_id !== undefined ? { vertex_project_id: k.vertex_project_id } : {}),
    ...(k.vertex_region !== undefined ? { vertex_region: k.vertex_region } : {}),
    ...(k.vertex_service_account_json !== undefined ? { vertex_service_account: true } : {}),
    created_at: k.created_at,
    ...(k.api_key.length >= 16 ? { key_hint: `…${k.api_key.slice(-4)}` } : {}),
  };
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
