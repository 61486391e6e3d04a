import { describe, expect, it } from 'vitest';
import { readCgroupMemoryLimit } from './memory-limit.js';

const files = (map: Record<string, string | undefined>) => (path: string) => map[path];

describe('readCgroupMemoryLimit', () => {
  it.each([
    { name: 'cgroup v2 limit', fs: { '/sys/fs/cgroup/memory.max': '536870912\n' }, want: 536870912 },
    { name: 'cgroup v2 without limit', fs: { '/sys/fs/cgroup/memory.max': 'max\n' }, want: undefined },
    { name: 'cgroup v1 limit', fs: { '/sys/fs/cgroup/memory/memory.limit_in_bytes': '268435456\n' }, want: 268435456 },
    { name: 'cgroup v1 "unlimited"', fs: { '/sys/fs/cgroup/memory/memory.limit_in_bytes': '9223372036854771712\n' }, want: undefined },
    { name: 'v2 wins over v1', fs: { '/sys/fs/cgroup/memory.max': '1000000', '/sys/fs/cgroup/memory/memory.limit_in_bytes': '2000000' }, want: 1000000 },
    { name: 'garbage is ignored', fs: { '/sys/fs/cgroup/memory.max': 'lots' }, want: undefined },
    { name: 'no cgroup files', fs: {}, want: undefined },
  ])('$name', ({ fs, want }) => {
    expect(readCgroupMemoryLimit(files(fs))).toBe(want);
  });
});
