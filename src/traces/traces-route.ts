/**
 * `GET /v1/traces/{traceId}` and `GET /v1/traces?since=1h&limit=50` (issue 8 item 3): summaries read
 * back from the trace backend (`SIDEGATE_TRACES_URL`). The trace id in the path is mapped like
 * `x-gateway-trace-id`, so a client's own id finds its trace. 404 for an unknown trace, 503 when
 * the backend is unset or unreachable, 400 naming `since` or `limit`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { InvalidRequestError } from '../errors.js';
import { parseSince } from './parse-since.js';
import { readRecentTraces, readTraceSummary } from './read-summaries.js';
import type { TraceReader } from './trace-reader.js';
import type { Route } from '../server/app.js';
import { sendJson } from '../server/respond.js';

export interface TracesRouteDeps {
  reader: TraceReader | undefined;
  /** `service.name` of this gateway's spans (`OTEL_SERVICE_NAME`): the traces it lists. */
  serviceName: string;
}

export const DEFAULT_LIST_LIMIT = 50;
export const MAX_LIST_LIMIT = 1000;

export function createTracesRoutes(deps: TracesRouteDeps): Route[] {
  return [
    {
      method: 'GET',
      path: '/v1/traces/:traceId',
      handler: async (_req: IncomingMessage, res: ServerResponse, params: Record<string, string>) => {
        const id = (params.traceId ?? '').trim();
        if (id.length === 0 || id.length > 256) throw new InvalidRequestError('trace id must be 1 to 256 characters', { param: 'traceId' });
        sendJson(res, 200, await readTraceSummary(deps.reader, id));
      },
    },
    {
      method: 'GET',
      path: '/v1/traces',
      handler: async (req: IncomingMessage, res: ServerResponse) => {
        const query = new URLSearchParams((req.url ?? '').split('?')[1] ?? '');
        const sinceText = query.get('since') ?? '1h';
        const sinceMs = parseSince(sinceText);
        if (sinceMs === null) {
          throw new InvalidRequestError(`since must be a duration such as 30m, 1h or 2d, at most 30d; got ${JSON.stringify(sinceText.slice(0, 40))}`, {
            param: 'since',
          });
        }
        const limitText = query.get('limit') ?? String(DEFAULT_LIST_LIMIT);
        const limit = /^\d{1,4}$/.test(limitText) ? Number(limitText) : NaN;
        if (!(limit >= 1 && limit <= MAX_LIST_LIMIT)) {
          throw new InvalidRequestError(`limit must be an integer from 1 to ${MAX_LIST_LIMIT}`, { param: 'limit' });
        }
        sendJson(res, 200, await readRecentTraces(deps.reader, { service: deps.serviceName, sinceMs, limit, now: new Date() }));
      },
    },
  ];
}
