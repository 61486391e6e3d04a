/** The source files the request-path guards (hot-path-spreads, nested-generators) read. */
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

export const root = join(import.meta.dirname, '..', '..');

/** The request path of chat completions and embeddings, from the socket to the upstream call and the spans. */
export const REQUEST_PATH_DIRS = ['gateway', 'chat-completions', 'embeddings', 'server', 'routing', 'providers', 'openai', 'overload', 'media', 'telemetry'];

/** Every non-test `.ts` file under `src/<dir>` for each of `dirs`, relative to the repository root. */
export function sourceFiles(dirs: readonly string[]): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return walk(path);
      return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
    });
  return dirs.flatMap((dir) => walk(join(root, 'src', dir))).map((path) => relative(root, path));
}
