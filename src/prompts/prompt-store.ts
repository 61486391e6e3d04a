/**
 * Prompt templates on disk: `{dir}/{id}/{version}.json|.yaml` plus optional `{id}/labels.json`
 * (`{"production": 3, "staging": 4}`), the layout of a mounted ConfigMap or a git checkout.
 *
 * Requests read an immutable snapshot, swapped whole when the directory changes (watched, plus
 * a poll), so one call sees one consistent set of versions and labels. A bad file never stops
 * the gateway and is never served: it is logged with its file and JSON path and listed in
 * `problems()`. When the directory is writable, `create` adds the next version (written
 * exclusively: an existing version file is never replaced, so versions are immutable) and
 * `setLabels` rewrites `labels.json` atomically; when it is not (a read-only mount), both
 * answer 409. Writes are serialized and read the disk first, so a concurrent CLI or `git pull`
 * is not lost.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { access, link, mkdir, open, readdir, readFile, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ConflictError, InvalidRequestError, NotFoundError } from '../errors.js';
import { writeFileAtomic } from '../keys/write-file-atomic.js';
import type { PromptFile, PromptSnapshot } from './build-snapshot.js';
import type { PromptVersion, TemplateProblem } from './prompt-template.js';
import type { PartialResolver } from './render-prompt.js';
import { oneRunAtATime } from '../one-run-at-a-time.js';
import { watchDirs } from '../watch-dirs.js';

/**
 * The template parser (YAML, mustache, the template schemas) is imported only when there is a
 * template to parse: a sidecar with no prompts directory, or an empty one, never loads it (issue
 * 11, idle RSS). Once loaded it stays loaded.
 */
const loadSnapshotBuilder = () => import('./build-snapshot.js');
const loadTemplateParser = () => Promise.all([import('./prompt-template.js'), import('./render-prompt.js')]);

export interface PromptSelector {
  version?: number | undefined;
  label?: string | undefined;
}

/** One prompt version picked for a call, with the partial lookup of the same snapshot. */
export interface ResolvedPrompt {
  version: PromptVersion;
  /** The label the caller asked for, if any. */
  label: string | undefined;
  resolvePartial: PartialResolver;
}

export interface PromptSummary {
  id: string;
  latest_version: number;
  versions: number[];
  labels: Record<string, number>;
}

export interface PromptStore {
  readonly dir: string;
  /** False for a read-only directory (a mounted ConfigMap): `create`/`setLabels` answer 409. */
  readonly writable: boolean;
  list(): PromptSummary[];
  /** Files that are not served, with the JSON path of what is wrong. */
  problems(): readonly TemplateProblem[];
  /** The latest version, or the one `version` or `label` names. 404 naming what is unknown. */
  resolve(id: string, selector?: PromptSelector): ResolvedPrompt;
  /** Validates (400 with `param`), writes the next version, returns it. */
  create(input: unknown): Promise<PromptVersion>;
  /** Replaces the prompt's labels; each must name a served version (400 with `param`). */
  setLabels(id: string, input: unknown): Promise<Record<string, number>>;
  /** Re-reads the directory now (also done when it changes). */
  reload(): Promise<void>;
  close(): void;
}

export interface PromptStoreOptions {
  dir: string;
  /** Serve the directory read-only even if it is writable. */
  readOnly?: boolean;
  /** Poll fallback for change detection. Default 5 s. */
  pollIntervalMs?: number;
  logger?: { warn(message: string): void };
  /** Called after each reload that found changed files. */
  onReload?: (problems: readonly TemplateProblem[]) => void;
}

export async function openPromptStore(options: PromptStoreOptions): Promise<PromptStore> {
  const { dir } = options;
  const log = options.logger ?? { warn: (m: string) => process.stderr.write(`${m}\n`) };
  const writable = options.readOnly ? false : await isWritable(dir);
  let snapshot: PromptSnapshot = { prompts: new Map(), problems: [], versionsOnDisk: new Map() };
  let resolver: PartialResolver = () => undefined;
  let signature: string | undefined;

  const install = async (files: PromptFile[], sig: string) => {
    let next: PromptSnapshot = { prompts: new Map(), problems: [], versionsOnDisk: new Map() };
    let nextResolver: PartialResolver = () => undefined;
    if (files.length > 0) {
      const { buildSnapshot, snapshotResolver } = await loadSnapshotBuilder();
      next = buildSnapshot(files);
      nextResolver = snapshotResolver(next);
    }
    snapshot = next;
    resolver = nextResolver;
    signature = sig;
    for (const p of next.problems) log.warn(`prompts: not serving ${p.file}${p.path ? ` at ${p.path}` : ''}: ${p.message}`);
    watcher.watch([dir, ...[...new Set(files.map((f) => f.path.split('/')[0]!))].map((id) => join(dir, id))]);
    options.onReload?.(next.problems);
  };

  // A change may land after the running reload listed the files: oneRunAtATime reads once more.
  const reload = oneRunAtATime(async () => {
    try {
      const { files, sig } = await readPromptDir(dir);
      if (sig !== signature) await install(files, sig);
    } catch (err) {
      log.warn(`prompts: cannot read ${dir}: ${(err as Error).message}`);
    }
  });

  const watcher = watchDirs(() => void reload(), { pollMs: options.pollIntervalMs ?? 5_000 });
  const initial = await readPromptDir(dir);
  await install(initial.files, initial.sig);

  let queue: Promise<unknown> = Promise.resolve();
  const serialize = <T>(job: () => Promise<T>): Promise<T> => {
    const run = queue.then(() => {
      if (!writable) {
        throw new ConflictError(`prompts are read-only here (${dir} is not writable)`, { code: 'prompts_read_only' });
      }
      return job();
    });
    queue = run.catch(() => {});
    return run;
  };
  const forceReload = async () => {
    signature = undefined;
    await reload(); // a reload under way is followed by one that sees the reset signature
  };

  const store: PromptStore = {
    dir,
    writable,
    list() {
      return [...snapshot.prompts.values()]
        .sort((a, b) => a.id.localeCompare(b.id))
        .map((entry) => ({
          id: entry.id,
          latest_version: entry.latest!,
          versions: [...entry.versions.keys()].sort((a, b) => a - b),
          labels: Object.fromEntries(entry.labels),
        }));
    },
    problems: () => snapshot.problems,
    resolve(id, selector = {}) {
      const current = snapshot;
      const entry = current.prompts.get(id);
      if (!entry) throw new NotFoundError(`No prompt named '${id}'`, { code: 'prompt_not_found' });
      let number = entry.latest!;
      if (selector.label !== undefined) {
        const labelled = entry.labels.get(selector.label);
        if (labelled === undefined) {
          throw new NotFoundError(`Prompt '${id}' has no label '${selector.label}'`, { param: 'label', code: 'prompt_label_not_found' });
        }
        number = labelled;
      } else if (selector.version !== undefined) {
        number = selector.version;
      }
      const version = entry.versions.get(number);
      if (!version) throw new NotFoundError(`Prompt '${id}' has no version ${number}`, { param: 'version', code: 'prompt_version_not_found' });
      return { version, label: selector.label, resolvePartial: resolver };
    },
    create(input) {
      return serialize(async () => {
        if (typeof input !== 'object' || input === null || Array.isArray(input)) {
          throw new InvalidRequestError('request body must be a JSON object', { code: 'invalid_request' });
        }
        const [{ parsePromptTemplate, PROMPT_ID }, { collectPartials, PartialError }] = await loadTemplateParser();
        const { version: asked, ...doc } = input as Record<string, unknown>;
        const id = doc.id;
        if (typeof id !== 'string' || !PROMPT_ID.test(id)) {
          throw new InvalidRequestError('id: 1-128 letters, digits, ".", "_" or "-", starting with a letter or digit', {
            param: 'id',
            code: 'invalid_value',
          });
        }
        await forceReload(); // see what is on disk now, not what the last event said
        const taken = snapshot.versionsOnDisk.get(id) ?? [];
        const number = (taken.length > 0 ? Math.max(...taken) : 0) + 1;
        if (asked !== undefined && asked !== number) {
          throw new ConflictError(`Prompt '${id}' would get version ${number}, not ${JSON.stringify(asked)} (versions are immutable)`, {
            param: 'version',
            code: 'prompt_version_conflict',
          });
        }
        const parsed = parsePromptTemplate(doc, `${id}/${number}.json`, { version: number });
        if (!parsed.ok) {
          const { path, message } = parsed.problem;
          throw new InvalidRequestError(`Invalid prompt${path ? ` at ${path}` : ''}: ${message}`, { param: path || null, code: 'invalid_prompt' });
        }
        try {
          collectPartials(parsed.version, resolver);
        } catch (err) {
          if (err instanceof PartialError) throw new InvalidRequestError(`Invalid prompt: ${err.message}`, { param: 'messages', code: 'invalid_prompt' });
          throw err;
        }
        await writeNewFile(join(dir, id, `${number}.json`), `${JSON.stringify(parsed.version.template, null, 2)}\n`);
        await forceReload();
        return store.resolve(id, { version: number }).version;
      });
    },
    setLabels(id, input) {
      return serialize(async () => {
        await forceReload();
        const entry = snapshot.prompts.get(id);
        if (!entry) throw new NotFoundError(`No prompt named '${id}'`, { code: 'prompt_not_found' });
        const { LabelsSchema, LABELS_FILE } = await loadSnapshotBuilder();
        const parsed = LabelsSchema.safeParse(input);
        if (!parsed.success) {
          const issue = parsed.error.issues[0]!;
          const message = issue.code === 'invalid_key' ? (issue.issues[0]?.message ?? issue.message) : issue.message;
          throw new InvalidRequestError(`Invalid labels: ${message}`, { param: issue.path.map(String).join('.') || null, code: 'invalid_labels' });
        }
        for (const [label, number] of Object.entries(parsed.data)) {
          if (!entry.versions.has(number)) {
            throw new InvalidRequestError(`Label '${label}' points at version ${number} of '${id}', which does not exist`, {
              param: label,
              code: 'prompt_version_not_found',
            });
          }
        }
        await writeFileAtomic(join(dir, id, LABELS_FILE), `${JSON.stringify(parsed.data, null, 2)}\n`, { mode: 0o644 });
        await forceReload();
        return Object.fromEntries(snapshot.prompts.get(id)?.labels ?? []);
      });
    },
    reload,
    close: () => watcher.close(),
  };
  return store;
}

/** Lists `{id}/{file}` under `dir` with a signature of names, sizes and mtimes (cheap to compare). */
async function readPromptDir(dir: string): Promise<{ files: PromptFile[]; sig: string }> {
  let ids: string[];
  try {
    ids = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { files: [], sig: 'missing' };
    throw err;
  }
  const files: PromptFile[] = [];
  const sig: string[] = [];
  // Names starting with a dot are a ConfigMap's `..data` links and our own temp files.
  for (const id of ids.filter((n) => !n.startsWith('.')).sort()) {
    const idDir = join(dir, id);
    const info = await stat(idDir).catch(() => undefined);
    if (!info) continue;
    if (!info.isDirectory()) {
      files.push({ path: id, raw: '' });
      sig.push(id);
      continue;
    }
    for (const name of (await readdir(idDir).catch(() => [] as string[])).filter((n) => !n.startsWith('.')).sort()) {
      const path = join(idDir, name);
      const fileInfo = await stat(path).catch(() => undefined);
      if (!fileInfo?.isFile()) continue;
      if (fileInfo.size > MAX_FILE_BYTES) {
        files.push({ path: `${id}/${name}`, raw: '"file larger than 1 MiB"' });
        continue;
      }
      const raw = await readFile(path, 'utf8').catch(() => undefined);
      if (raw === undefined) continue; // removed between listing and reading: the next scan settles it
      files.push({ path: `${id}/${name}`, raw });
      sig.push(`${id}/${name}:${fileInfo.size}:${fileInfo.mtimeMs}:${fileInfo.ino}`);
    }
  }
  return { files, sig: sig.join('\n') };
}

const MAX_FILE_BYTES = 1024 * 1024;

/**
 * Writes a file that must not exist yet, whole or not at all: a temp file is written and synced,
 * then hard-linked to its name (which fails if the name is taken, unlike a rename).
 */
async function writeNewFile(path: string, data: string): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true });
  const tmp = join(dir, `.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(tmp, 'wx', 0o644);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await link(tmp, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new ConflictError(`${basename(dir)}/${basename(path)} already exists (versions are immutable)`, {
        code: 'prompt_version_conflict',
      });
    }
    throw err;
  } finally {
    await rm(tmp, { force: true });
  }
}

/** Writable when the directory (or, before it exists, its nearest existing parent) is. */
async function isWritable(dir: string): Promise<boolean> {
  let current = dir;
  for (;;) {
    try {
      await access(current, constants.W_OK);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return false;
      const parent = dirname(current);
      if (parent === current) return false;
      current = parent;
    }
  }
}
