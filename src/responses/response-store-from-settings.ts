/**
 * The Responses store the settings ask for: `memory` (default) or `disk` under
 * `<data dir>/responses` (`SIDEGATE_RESPONSES_STORE`), bounded by
 * `SIDEGATE_RESPONSES_STORE_MAX_BYTES` and `SIDEGATE_RESPONSES_STORE_TTL_SECONDS`.
 */
import { join } from 'node:path';
import type { Settings } from '../config/settings.js';
import { createDiskResponseStore } from './disk-response-store.js';
import { createMemoryResponseStore, type ResponseStore } from './response-store.js';

export async function responseStoreFromSettings(
  settings: Pick<Settings, 'responsesStore' | 'responsesStoreMaxBytes' | 'responsesStoreTtlSeconds' | 'dataDir'>,
): Promise<ResponseStore> {
  const limits = { maxBytes: settings.responsesStoreMaxBytes, ttlMs: settings.responsesStoreTtlSeconds * 1000 };
  return settings.responsesStore === 'disk'
    ? createDiskResponseStore(join(settings.dataDir, 'responses'), limits)
    : createMemoryResponseStore(limits);
}
