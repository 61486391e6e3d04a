/**
 * The request fields a `response` object echoes back (OpenAI returns them on every response, and
 * SDKs read some, e.g. `text.format` for parsed output). Pure.
 */
import type { ResponsesRequest } from './responses-request.js';
import type { ResponseEcho } from './response-object.js';

export function responseEcho(req: ResponsesRequest): ResponseEcho {
  return {
    model: req.model,
    instructions: req.instructions ?? null,
    metadata: req.metadata ?? {},
    tools: req.tools ?? [],
    tool_choice: req.tool_choice ?? 'auto',
    parallel_tool_calls: req.parallel_tool_calls ?? true,
    temperature: req.temperature ?? null,
    top_p: req.top_p ?? null,
    max_output_tokens: req.max_output_tokens ?? null,
    previous_response_id: req.previous_response_id ?? null,
    reasoning: { effort: req.reasoning?.effort ?? null, summary: req.reasoning?.summary ?? req.reasoning?.generate_summary ?? null },
    text: { format: req.text?.format ?? { type: 'text' }, ...(req.text?.verbosity != null ? { verbosity: req.text.verbosity } : {}) },
    truncation: 'disabled',
    store: req.store ?? true,
    user: req.user ?? null,
    background: false,
    service_tier: 'default',
  };
}
