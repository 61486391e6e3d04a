/**
 * `POST /v1/feedback` and `PUT /v1/feedback/{id}` (issue 8 item 2): validate, then hand one
 * feedback version to telemetry, which exports it as a `feedback` span in the rated trace. The
 * feedback id names its trace (parse-feedback.ts), so an update needs no stored state.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { NotFoundError } from '../errors.js';
import type { FeedbackVersion } from '../telemetry/telemetry.js';
import { parseFeedbackUpdate, parseNewFeedback, traceOfFeedbackId } from './parse-feedback.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import type { Route } from '../server/app.js';
import { readJsonBody } from '../server/read-body.js';
import { sendJson } from '../server/respond.js';

export interface FeedbackRouteDeps {
  telemetry: Telemetry;
  maxBodyBytes: number;
  /** Wall-clock ms with sub-ms precision, so two versions sent back to back keep their order. */
  now?: () => number;
}

const FEEDBACK_BODY_LIMIT = 64 * 1024;

export function createFeedbackRoutes(deps: FeedbackRouteDeps): Route[] {
  const now = deps.now ?? (() => performance.timeOrigin + performance.now());
  const limit = Math.min(deps.maxBodyBytes, FEEDBACK_BODY_LIMIT);
  const record = (res: ServerResponse, feedback: FeedbackVersion) => {
    deps.telemetry.recordFeedback?.(feedback, now());
    sendJson(res, 200, { status: 'success', message: 'feedback recorded', feedback_ids: [feedback.id] });
  };
  return [
    {
      method: 'POST',
      path: '/v1/feedback',
      handler: async (req: IncomingMessage, res: ServerResponse) => record(res, parseNewFeedback(await readJsonBody(req, limit))),
    },
    {
      method: 'PUT',
      path: '/v1/feedback/:id',
      handler: async (req: IncomingMessage, res: ServerResponse, params: Record<string, string>) => {
        const id = params.id ?? '';
        const traceId = traceOfFeedbackId(id);
        if (traceId === null) {
          throw new NotFoundError(`no feedback with id ${JSON.stringify(id.slice(0, 100))}; ids look like fb-<32 hex>-<16 hex>`, {
            code: 'feedback_not_found',
          });
        }
        record(res, parseFeedbackUpdate(id, traceId, await readJsonBody(req, limit)));
      },
    },
  ];
}
