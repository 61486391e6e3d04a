/**
 * Replaces a file so that a reader (or a restart after a crash) sees either the old contents or
 * the new ones, never a torn or empty file: write a temp file beside it, fsync, rename over the
 * target, then fsync the directory so the rename itself survives a power cut.
 */
import { randomBytes } from 'node:crypto';
import { open, rename as fsRename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

export interface AtomicWriteOptions {
  mode?: number;
  /** Injected for tests that simulate a crash between write and rename. */
  rename?: (from: string, to: string) => Promise<void>;
}

export async function writeFileAtomic(path: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): Promise<void> {
  const dir = dirname(path);
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(tmp, 'wx', options.mode ?? 0o600);
  try {
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await (options.rename ?? fsRename)(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
  await syncDir(dir);
}

async function syncDir(dir: string): Promise<void> {
  // Directories cannot be fsync'd on every platform (Windows); the rename already happened.
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    /* best effort */
  }
}
