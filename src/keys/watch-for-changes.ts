/**
 * Change detection for a key file: fs.watch on its directory (a Kubernetes Secret is updated by
 * a symlink swap, a rename replaces the inode) plus an unref'd poll, debounced. Returns stop.
 */
import { watch, type FSWatcher } from 'node:fs';
import { dirname } from 'node:path';

export function watchForChanges(file: string, onChange: () => void, pollMs: number): () => void {
  let debounce: NodeJS.Timeout | undefined;
  const schedule = () => {
    if (debounce) return;
    debounce = setTimeout(() => {
      debounce = undefined;
      onChange();
    }, 50);
    debounce.unref();
  };
  let watcher: FSWatcher | undefined;
  try {
    // The directory, not the file: a Secret update swaps the `..data` symlink and a rename
    // replaces the inode, neither of which a watch on the old file would see.
    watcher = watch(dirname(file), { persistent: false }, schedule);
    watcher.on('error', () => watcher?.close());
  } catch {
    /* the poll still runs */
  }
  const poll = setInterval(onChange, pollMs);
  poll.unref();
  return () => {
    watcher?.close();
    clearInterval(poll);
    if (debounce) clearTimeout(debounce);
  };
}
