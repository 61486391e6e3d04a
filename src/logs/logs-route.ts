/**
 * `POST /v1/logs` (issue 8 item 1): validate the whole batch, count it against the monthly quota,
 * give each log an id, and hand them to telemetry, which exports one span per log. All or nothing:
 * a bad entry (400) or a full quota (429) exports nothing. The answer is the same whether
 * telemetry is on or off (DESIGN Decision 18).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LogsQuota } from './logs-quota.js';
import { parseLogs } from './parse-logs.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import { readJsonBody } from '../server/read-body.js';
import { sendJson } from '../server/respond.js';

export interface LogsRouteDeps {
  telemetry: Telemetry;
  quota: LogsQuota;
  maxBodyBytes: number;
  now?: () => number;
}

export function createLogsRoute(deps: LogsRouteDeps) {
  const now = deps.now ?? Date.now;
  return async function insertLogs(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readJsonBody(req, deps.maxBodyBytes);
    const at = now();
    const logs = parseLogs(body, at);
    await deps.quota.take(logs.length, new Date(at));
    const identified = logs.map((log) => Object.assign({}, log, { id: `log-${randomUUID()}` }));
    deps.telemetry.recordLogs?.(identified);
    sendJson(res, 200, { status: 'success', log_ids: identified.map((log) => log.id) });
  };
}
