/**
 * Change detection for a key file: the one directory watcher (`watch-dirs.ts`) on the file's
 * directory, since a Kubernetes Secret is updated by a symlink swap and a rename replaces the
 * inode, neither of which a watch on the file itself would see. Returns stop.
 */
import { dirname } from 'node:path';
import { watchDirs } from '../watch-dirs.js';

export function watchForChanges(file: string, onChange: () => void, pollMs: number): () => void {
  const watcher = watchDirs(onChange, { pollMs });
  watcher.watch([dirname(file)]);
  return () => watcher.close();
}
