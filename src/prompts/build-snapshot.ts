/**
 * Turns the files of a prompts directory into the immutable snapshot requests read from.
 *
 * Pure: takes `{path, raw}` pairs (paths relative to the directory, e.g. `greet/2.yaml`) and
 * returns what can be served plus every problem found, each naming its file and the JSON path
 * inside it. Nothing invalid is ever served: a file that does not parse or validate, a version
 * present twice (`3.json` and `3.yaml`), a version whose partials name nothing or form a cycle,
 * and a label pointing at a version that is not served are all left out and reported.
 */
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { LABEL_NAME, parsePromptTemplate, PROMPT_ID, type PromptVersion, type TemplateProblem } from './prompt-template.js';
import { collectPartials, PartialError } from './render-prompt.js';

export interface PromptFile {
  /** Relative to the prompts directory, `/`-separated. */
  path: string;
  raw: string;
}

export interface PromptEntry {
  id: string;
  /** Served versions by number. */
  versions: ReadonlyMap<number, PromptVersion>;
  /** Labels that point at a served version. */
  labels: ReadonlyMap<string, number>;
  /** Highest served version. */
  latest: number | undefined;
}

export interface PromptSnapshot {
  prompts: ReadonlyMap<string, PromptEntry>;
  problems: readonly TemplateProblem[];
  /** Every version number with a file on disk per id, valid or not (the next version skips them). */
  versionsOnDisk: ReadonlyMap<string, readonly number[]>;
}

export const VERSION_FILE = /^([1-9][0-9]{0,8})\.(json|yaml|yml)$/;
export const LABELS_FILE = 'labels.json';

export const LabelsSchema = z.record(
  z.string().regex(LABEL_NAME, 'label names: a letter, then letters, digits, ".", "_" or "-" (at most 64)'),
  z.number().int().positive(),
);

/** Parses a file's text as JSON or YAML by its extension; throws with a line-numbered message. */
export function parseDocument(path: string, raw: string): unknown {
  if (path.endsWith('.json')) {
    try {
      return JSON.parse(raw);
    } catch (err) {
      throw new Error(`not valid JSON: ${(err as Error).message}`);
    }
  }
  try {
    // The yaml package caps alias expansion (maxAliasCount 100), so a "billion laughs" file fails.
    return parseYaml(raw);
  } catch (err) {
    throw new Error(`not valid YAML: ${(err as Error).message.split('\n')[0]}`);
  }
}

export function buildSnapshot(files: readonly PromptFile[]): PromptSnapshot {
  const problems: TemplateProblem[] = [];
  const problem = (file: string, path: string, message: string) => problems.push({ file, path, message });
  const versions = new Map<string, Map<number, PromptVersion>>();
  const labelDocs = new Map<string, { file: string; doc: unknown }>();
  const onDisk = new Map<string, number[]>();
  const seen = new Map<string, string>(); // `id/version` → first file

  for (const file of [...files].sort((a, b) => a.path.localeCompare(b.path))) {
    const [id, name, ...rest] = file.path.split('/');
    if (id === undefined || name === undefined || rest.length > 0) {
      problem(file.path, '', 'expected {id}/{version}.json, {id}/{version}.yaml or {id}/labels.json');
      continue;
    }
    if (!PROMPT_ID.test(id)) {
      problem(file.path, '', 'directory name is not a prompt id (letters, digits, ".", "_", "-", starting with a letter or digit)');
      continue;
    }
    if (name === LABELS_FILE) {
      try {
        labelDocs.set(id, { file: file.path, doc: parseDocument(file.path, file.raw) });
      } catch (err) {
        problem(file.path, '', (err as Error).message);
      }
      continue;
    }
    const match = VERSION_FILE.exec(name);
    if (!match) {
      problem(file.path, '', 'expected {version}.json, {version}.yaml or labels.json (version: 1, 2, 3, …)');
      continue;
    }
    const number = Number(match[1]);
    const list = onDisk.get(id) ?? [];
    list.push(number);
    onDisk.set(id, list);
    const key = `${id}/${number}`;
    const first = seen.get(key);
    if (first !== undefined) {
      problem(file.path, '', `version ${number} of ${id} is also defined by ${first}; neither is served`);
      versions.get(id)?.delete(number);
      continue;
    }
    seen.set(key, file.path);
    let doc: unknown;
    try {
      doc = parseDocument(file.path, file.raw);
    } catch (err) {
      problem(file.path, '', (err as Error).message);
      continue;
    }
    const result = parsePromptTemplate(doc, file.path, { id, version: number });
    if (!result.ok) {
      problems.push(result.problem);
      continue;
    }
    const byNumber = versions.get(id) ?? new Map<number, PromptVersion>();
    byNumber.set(number, result.version);
    versions.set(id, byNumber);
  }
  // A duplicate found after the first copy was parsed removed it above; drop a now-empty id.
  for (const [id, byNumber] of versions) if (byNumber.size === 0) versions.delete(id);

  const labels = new Map<string, Map<string, number>>();
  const resolveLabels = () => {
    labels.clear();
    for (const [id, { file, doc }] of labelDocs) {
      const parsed = LabelsSchema.safeParse(doc);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        problem(file, issue.path.map(String).join('.'), issue.code === 'invalid_key' ? (issue.issues[0]?.message ?? issue.message) : issue.message);
        continue;
      }
      const map = new Map<string, number>();
      for (const [label, number] of Object.entries(parsed.data)) {
        if (versions.get(id)?.has(number)) map.set(label, number);
        else problem(file, label, `label ${label} points at version ${number} of ${id}, which is not served`);
      }
      labels.set(id, map);
    }
  };

  // Partials are checked against what is served; dropping a version can break one that
  // includes it, so repeat until nothing more drops. Label problems are reported once, at the end.
  for (;;) {
    const before = problems.length;
    resolveLabels();
    problems.length = before;
    const resolve = partialResolver(versions, labels);
    let dropped = false;
    for (const [, byNumber] of versions) {
      for (const [number, version] of byNumber) {
        try {
          collectPartials(version, resolve);
        } catch (err) {
          if (!(err instanceof PartialError)) throw err;
          const at = version.texts.find((t) => version.partials.some((p) => t.text.includes(p)))?.path ?? '';
          problem(version.source, at, err.message);
          byNumber.delete(number);
          dropped = true;
        }
      }
    }
    if (!dropped) break;
  }
  resolveLabels();

  const prompts = new Map<string, PromptEntry>();
  for (const [id, byNumber] of versions) {
    if (byNumber.size === 0) continue;
    prompts.set(id, { id, versions: byNumber, labels: labels.get(id) ?? new Map(), latest: Math.max(...byNumber.keys()) });
  }
  for (const list of onDisk.values()) list.sort((a, b) => a - b);
  return { prompts, problems, versionsOnDisk: onDisk };
}

/** `id` (latest), `id@3` (a version) or `id@production` (a label) → the version it names. */
export function partialResolver(
  versions: ReadonlyMap<string, ReadonlyMap<number, PromptVersion>>,
  labels: ReadonlyMap<string, ReadonlyMap<string, number>>,
): (ref: string) => PromptVersion | undefined {
  return (ref) => {
    const at = ref.lastIndexOf('@');
    const id = at === -1 ? ref : ref.slice(0, at);
    const byNumber = versions.get(id);
    if (!byNumber || byNumber.size === 0) return undefined;
    if (at === -1) return byNumber.get(Math.max(...byNumber.keys()));
    const selector = ref.slice(at + 1);
    const number = /^[1-9][0-9]*$/.test(selector) ? Number(selector) : labels.get(id)?.get(selector);
    return number === undefined ? undefined : byNumber.get(number);
  };
}

/** The partial resolver of a built snapshot. */
export function snapshotResolver(snapshot: PromptSnapshot): (ref: string) => PromptVersion | undefined {
  const versions = new Map<string, ReadonlyMap<number, PromptVersion>>();
  const labels = new Map<string, ReadonlyMap<string, number>>();
  for (const [id, entry] of snapshot.prompts) {
    versions.set(id, entry.versions);
    labels.set(id, entry.labels);
  }
  return partialResolver(versions, labels);
}
