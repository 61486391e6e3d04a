import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LogsQuotaError, openLogsQuota } from './logs-quota.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sidegate-quota-unit-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const nov = new Date(Date.UTC(2026, 10, 30, 23, 59, 0));
const dec = new Date(Date.UTC(2026, 11, 1, 0, 0, 1));

describe('openLogsQuota', () => {
  it('refuses a whole batch that does not fit, with Retry-After until the next UTC month, then resets', async () => {
    const quota = await openLogsQuota(dir, 5);
    await quota.take(4, nov);
    const error = await quota.take(2, nov).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LogsQuotaError);
    expect((error as LogsQuotaError).status).toBe(429);
    expect((error as LogsQuotaError).retryAfterSeconds).toBe(60);
    await quota.take(1, nov);
    await quota.take(5, dec);
    expect(JSON.parse(await readFile(join(dir, 'logs-quota.json'), 'utf8'))).toStrictEqual({ month: '2026-12', count: 5 });
  });

  it('continues from the persisted count', async () => {
    await writeFile(join(dir, 'logs-quota.json'), JSON.stringify({ month: '2026-11', count: 5 }));
    const quota = await openLogsQuota(dir, 5);
    await expect(quota.take(1, nov)).rejects.toBeInstanceOf(LogsQuotaError);
  });

  it('never refuses and writes nothing when no limit is set', async () => {
    const quota = await openLogsQuota(join(dir, 'absent'), undefined);
    await quota.take(1_000_000, nov);
    await expect(readFile(join(dir, 'absent', 'logs-quota.json'))).rejects.toThrow();
  });

  it('fails at startup on a corrupt file, naming the variable', async () => {
    await writeFile(join(dir, 'logs-quota.json'), '{"month":');
    await expect(openLogsQuota(dir, 5)).rejects.toThrow(/SIDEGATE_LOGS_PER_MONTH/);
  });
});
