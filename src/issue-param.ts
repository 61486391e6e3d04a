/**
 * The one way a zod issue becomes the `param` of a 400 (OpenAI's style: `messages[1].content`):
 * a union reports the branch the input was evidently meant for, an unknown key is named in the
 * path. Used by every schema at the edge (chat and embeddings bodies, routing configs, virtual
 * keys, logs, feedback, overrides). Pure.
 */
import type { z } from 'zod';

/** `["messages", 1, "content"]` → `messages[1].content`; `prefix` starts the path (`config`). */
export function formatParam(path: ReadonlyArray<PropertyKey>, prefix = ''): string {
  let out = prefix;
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out;
}

/**
 * For a union such as `string | Part[]`, the branch the input was evidently meant for (the one
 * that got furthest) instead of zod's generic "Invalid input" on the union itself.
 */
export function innermostIssue(issue: z.core.$ZodIssue): z.core.$ZodIssue {
  if (issue.code !== 'invalid_union' || issue.errors.length === 0) return issue;
  let best: z.core.$ZodIssue | undefined;
  for (const branch of issue.errors) {
    const candidate = branch[0];
    if (!candidate) continue;
    if (candidate.code === 'invalid_type' && candidate.path.length === 0) continue;
    if (!best || candidate.path.length > best.path.length) best = candidate;
  }
  if (!best) return issue;
  return innermostIssue({ ...best, path: [...issue.path, ...best.path] } as z.core.$ZodIssue);
}

/** The path of an issue (innermost union branch), with the first unknown key appended. */
export function issuePath(rawIssue: z.core.$ZodIssue): PropertyKey[] {
  const issue = innermostIssue(rawIssue);
  const path = [...issue.path];
  if (issue.code === 'unrecognized_keys' && issue.keys.length > 0) path.push(issue.keys[0]!);
  return path;
}

/** `param` of an issue: its formatted path (see `formatParam`), `prefix` first. */
export function issueParam(issue: z.core.$ZodIssue, prefix = ''): string {
  return formatParam(issuePath(issue), prefix);
}
