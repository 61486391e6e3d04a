/**
 * The read-only keys file (`SIDEGATE_VIRTUAL_KEYS_FILE`): a plaintext JSON array
 * `[{"slug","provider","api_key"?,"custom_host"?,"vertex_*"?}]`, typically a mounted Kubernetes Secret. Pure.
 */
import { z } from 'zod';
import { innermostIssue, issueParam } from '../issue-param.js';
import { toStoredKey, VirtualKeyInputSchema, type StoredKey } from './stored-key.js';

const KeysFileSchema = z.array(VirtualKeyInputSchema);

/** Parses the plaintext keys file. Errors name the entry and field, never a value. */
export function parseKeysFile(raw: string, createdAt: string): StoredKey[] {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw new Error('not valid JSON (expected [{"slug","provider","api_key","custom_host"?}])');
  }
  const parsed = KeysFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = innermostIssue(parsed.error.issues[0]!);
    const path = issueParam(issue);
    throw new Error(`${path || 'top level'}: ${issue.code === 'unrecognized_keys' ? 'unknown field' : issue.message}`);
  }
  const seen = new Set<string>();
  return parsed.data.map((k, i) => {
    if (seen.has(k.slug)) throw new Error(`${i}.slug: duplicate slug ${k.slug}`);
    seen.add(k.slug);
    return toStoredKey(k, createdAt);
  });
}
