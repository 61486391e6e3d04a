/**
 * Vertex AI `labels` (billing and reporting, vertex-ai.md §2.1) from the request's OpenAI
 * `metadata` object: a caller that sends `metadata` to a Vertex target asks for it to be billed
 * under those labels (AI Studio has no labels and keeps ignoring `metadata`, with a warning).
 * Pure. Google's label rules: keys start with a lowercase letter, keys and values at most 63
 * lowercase letters, digits, `_` or `-`; a pair that breaks them is a 400 naming it, since
 * Vertex would refuse the whole request.
 */
import { InvalidRequestError } from '../../errors.js';
import type { ChatCompletionRequest } from '../../openai/chat-request.js';
import type { GeminiRequestBody } from '../gemini/convert-request.js';

const LABEL_KEY = /^[a-z][a-z0-9_-]{0,62}$/;
const LABEL_VALUE = /^[a-z0-9_-]{0,63}$/;
const MAX_LABELS = 64;

export function vertexLabels(metadata: Readonly<Record<string, string>>): Record<string, string> {
  const entries = Object.entries(metadata);
  if (entries.length > MAX_LABELS) {
    throw new InvalidRequestError(`metadata: Vertex AI takes at most ${MAX_LABELS} labels`, { param: 'metadata', code: 'invalid_vertex_label' });
  }
  const labels: Record<string, string> = {};
  for (const [key, value] of entries) {
    if (!LABEL_KEY.test(key) || !LABEL_VALUE.test(value)) {
      const param = `metadata.${key.slice(0, 63)}`;
      throw new InvalidRequestError(
        `${param}: Vertex AI labels need a key starting with a lowercase letter and a key and value of at most 63 lowercase letters, digits, _ or -`,
        { param, code: 'invalid_vertex_label' },
      );
    }
    labels[key] = value;
  }
  return labels;
}

/**
 * The translated body as Vertex takes it: `labels` from `metadata` (dropping the
 * `ignored_param:metadata` warning it answers), and no `serviceTier`, a field only AI Studio's
 * body has: `default` is what Vertex serves anyway, while flex and priority capacity are chosen
 * on Vertex by a request header (`X-Vertex-AI-LLM-Shared-Request-Type`, vertex-ai.md §2.1) that
 * the gateway does not send yet, so asking for them is a 400 rather than a silent standard call.
 */
export function finishVertexBody(body: GeminiRequestBody, request: ChatCompletionRequest, warnings: string[]): GeminiRequestBody {
  let finished = body;
  if (body.serviceTier !== undefined) {
    if (body.serviceTier !== 'standard') {
      throw new InvalidRequestError(`service_tier: '${request.service_tier}' is not available for Vertex AI targets (use an AI Studio target, or 'default')`, {
        param: 'service_tier',
        code: 'unsupported_parameter',
      });
    }
    const { serviceTier: _standard, ...rest } = body;
    finished = rest;
  }
  const metadata = request.metadata;
  if (metadata == null || Object.keys(metadata).length === 0) return finished;
  const at = warnings.indexOf('ignored_param:metadata');
  if (at >= 0) warnings.splice(at, 1);
  return Object.assign({}, finished, { labels: vertexLabels(metadata) });
}
