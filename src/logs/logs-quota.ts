/**
 * `SIDEGATE_LOGS_PER_MONTH` (issue 8 item 4): inserted logs counted per calendar month (UTC) and
 * persisted in the data dir (`logs-quota.json`, replaced atomically), so a restart does not reset
 * the count. A batch that does not fit in what is left is refused whole with a 429 whose
 * `Retry-After` points at the next month. Per pod by design (DESIGN "At scale"). Chat completions
 * never pass through here.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { GatewayError } from '../errors.js';
import { writeFileAtomic } from '../keys/write-file-atomic.js';

export const LOGS_QUOTA_FILE = 'logs-quota.json';

/** 429 for a limit of the gateway itself (not an upstream's). */
export class LogsQuotaError extends GatewayError {
  readonly status = 429;
  readonly type = 'rate_limit_error' as const;
}

interface State {
  month: string;
  count: number;
}

export interface LogsQuota {
  /** Counts `n` logs against this month, or throws `LogsQuotaError` (nothing counted). */
  take(n: number, now: Date): Promise<void>;
}

/** The quota for `limit` logs a month, or one that never refuses when `limit` is undefined. */
export async function openLogsQuota(dataDir: string, limit: number | undefined): Promise<LogsQuota> {
  if (limit === undefined) return { take: async () => {} };
  const file = join(dataDir, LOGS_QUOTA_FILE);
  let state: State = { month: '', count: 0 };
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as Partial<State>;
    if (typeof parsed.month !== 'string' || typeof parsed.count !== 'number' || !Number.isInteger(parsed.count) || parsed.count < 0) {
      throw new Error('expected {"month":"YYYY-MM","count":N}');
    }
    state = { month: parsed.month, count: parsed.count };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new Error(`SIDEGATE_LOGS_PER_MONTH: cannot read ${file} (${(err as Error).message}); fix or remove it`);
    }
  }
  // Writes are chained so they land in order; each writes the state as it is when it runs.
  let writing: Promise<void> = Promise.resolve();
  const persist = () =>
    (writing = writing.catch(() => {}).then(async () => {
      await mkdir(dataDir, { recursive: true, mode: 0o700 });
      await writeFileAtomic(file, JSON.stringify(state));
    }));

  return {
    async take(n, now) {
      const month = now.toISOString().slice(0, 7);
      if (state.month !== month) state = { month, count: 0 };
      if (state.count + n > limit) {
        const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
        const left = limit - state.count;
        const error = new LogsQuotaError(
          `monthly log limit reached: SIDEGATE_LOGS_PER_MONTH is ${limit}, ${state.count} logs inserted in ${month} ` +
            `(${left} left, this batch has ${n}); the count resets at ${new Date(next).toISOString()}`,
          { code: 'logs_quota_exceeded' },
        );
        error.retryAfterSeconds = Math.max(1, Math.ceil((next - now.getTime()) / 1000));
        throw error;
      }
      state = { month, count: state.count + n };
      await persist();
    },
  };
}
