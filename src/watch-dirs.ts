/**
 * Calls `onChange` (debounced) when something under a set of directories may have changed:
 * `fs.watch` on each directory (not on files: a ConfigMap or Secret update swaps a `..data`
 * symlink and an atomic write renames over the old inode, neither of which a watch on the file
 * itself would see), plus an unref'd poll for filesystems where watching is not reliable
 * (network mounts, some container runtimes). The caller re-reads and compares; a spurious call
 * costs one scan. Never keeps the process alive.
 */
import { watch, type FSWatcher } from 'node:fs';

export interface DirWatcher {
  /** Replaces the watched set (e.g. after a reload found new prompt directories). */
  watch(dirs: readonly string[]): void;
  close(): void;
}

export function watchDirs(onChange: () => void, options: { pollMs: number; debounceMs?: number }): DirWatcher {
  let debounce: NodeJS.Timeout | undefined;
  const schedule = () => {
    if (debounce) return;
    debounce = setTimeout(() => {
      debounce = undefined;
      onChange();
    }, options.debounceMs ?? 50);
    debounce.unref();
  };
  const watchers = new Map<string, FSWatcher>();
  const poll = setInterval(onChange, options.pollMs);
  poll.unref();
  return {
    watch(dirs) {
      const want = new Set(dirs);
      for (const [dir, w] of watchers) {
        if (!want.has(dir)) {
          w.close();
          watchers.delete(dir);
        }
      }
      for (const dir of want) {
        if (watchers.has(dir)) continue;
        try {
          const w = watch(dir, { persistent: false }, schedule);
          // A watched directory that disappears errors on some platforms; the poll still runs.
          w.on('error', () => {
            w.close();
            watchers.delete(dir);
          });
          watchers.set(dir, w);
        } catch {
          /* missing or unwatchable: the poll covers it */
        }
      }
    },
    close() {
      for (const w of watchers.values()) w.close();
      watchers.clear();
      clearInterval(poll);
      if (debounce) clearTimeout(debounce);
    },
  };
}
