/**
 * The container's memory limit, read from the cgroup filesystem: cgroup v2 `memory.max`, else
 * cgroup v1 `memory.limit_in_bytes`. `undefined` when there is none (no file, `max`, or v1's
 * "unlimited" value near 2^63). Read once at startup.
 */
import { readFileSync } from 'node:fs';

const V2 = '/sys/fs/cgroup/memory.max';
const V1 = '/sys/fs/cgroup/memory/memory.limit_in_bytes';
/** cgroup v1 reports "no limit" as a page-aligned value close to 2^63; anything past 2^60 is that. */
const UNLIMITED = 2 ** 60;

export type ReadText = (path: string) => string | undefined;

const readText: ReadText = (path) => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
};

export function readCgroupMemoryLimit(read: ReadText = readText): number | undefined {
  for (const path of [V2, V1]) {
    const raw = read(path)?.trim();
    if (raw === undefined || raw === '') continue;
    if (raw === 'max') return undefined;
    const bytes = Number(raw);
    if (!Number.isFinite(bytes) || bytes <= 0) continue;
    return bytes >= UNLIMITED ? undefined : bytes;
  }
  return undefined;
}
