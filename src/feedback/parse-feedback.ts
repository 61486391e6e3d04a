/**
 * `POST /v1/feedback` and `PUT /v1/feedback/{id}` bodies (issue 8 item 2), validated with strict zod
 * schemas; a missing or out-of-range field is a 400 naming it. Pure.
 *
 * A feedback id carries its trace: `fb-<32-hex trace id>-<16 hex>`. A new version (`PUT`) then lands
 * in the same trace without the gateway keeping any state, on any pod and after a restart; the
 * summary counts the latest version of each id.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { InvalidRequestError } from '../errors.js';
import { issueToError } from '../openai/parse-chat-request.js';
import { mapTraceId } from '../telemetry/map-id.js';
import type { FeedbackVersion } from '../telemetry/telemetry.js';

const Metadata = z
  .record(z.string().min(1).max(128), z.string().max(1024))
  .refine((m) => Object.keys(m).length <= 64, 'at most 64 keys');

const Value = z.int('must be an integer from -10 to 10').min(-10).max(10);
const Weight = z.number().min(0).max(1);

const NewFeedback = z.strictObject({
  trace_id: z.string().trim().min(1, 'must not be blank').max(256),
  value: Value,
  weight: Weight.optional(),
  metadata: Metadata.optional(),
});

const FeedbackUpdate = z.strictObject({
  value: Value,
  weight: Weight.optional(),
  metadata: Metadata.optional(),
});

const FEEDBACK_ID = /^fb-([0-9a-f]{32})-[0-9a-f]{16}$/;

export function parseNewFeedback(body: unknown): FeedbackVersion {
  const data = parse(NewFeedback, body);
  const traceId = mapTraceId(data.trace_id);
  return {
    id: `fb-${traceId}-${randomBytes(8).toString('hex')}`,
    traceId,
    clientTraceId: data.trace_id,
    value: data.value,
    weight: data.weight ?? 1,
    metadata: data.metadata ?? {},
  };
}

/** The trace a feedback id belongs to, or null when the id is not one this gateway issues. */
export function traceOfFeedbackId(id: string): string | null {
  return FEEDBACK_ID.exec(id)?.[1] ?? null;
}

/** A new version of feedback `id`; the caller has checked `traceOfFeedbackId(id)` first. */
export function parseFeedbackUpdate(id: string, traceId: string, body: unknown): FeedbackVersion {
  const data = parse(FeedbackUpdate, body);
  return { id, traceId, value: data.value, weight: data.weight ?? 1, metadata: data.metadata ?? {} };
}

function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new InvalidRequestError('request body must be a JSON object', { code: 'invalid_request' });
  }
  const result = schema.safeParse(body);
  if (!result.success) throw issueToError(result.error.issues[0]!);
  return result.data;
}
