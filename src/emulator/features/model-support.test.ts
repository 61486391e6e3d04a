import { describe, expect, it } from 'vitest';
import { validateGenerateRequest } from '../validate-request.js';

const user = { role: 'user', parts: [{ text: 'see https://example.com' }] };

function messageOf(body: Record<string, unknown>, model: string): string | null {
  const r = validateGenerateRequest({ contents: [user], ...body }, model, () => undefined);
  return r.ok ? null : r.error.error.message;
}

describe('per-model support of the issue-23 fields', () => {
  it.each<{ name: string; model: string; body: Record<string, unknown>; want: string | null }>([
    { name: 'urlContext on 2.5 Flash', model: 'gemini-2.5-flash', body: { tools: [{ url_context: {} }] }, want: null },
    { name: 'urlContext on 3.1 Pro', model: 'gemini-3.1-pro-preview', body: { tools: [{ urlContext: {} }] }, want: null },
    {
      name: 'urlContext on 2.0 Flash',
      model: 'gemini-2.0-flash',
      body: { tools: [{ urlContext: {} }] },
      want: 'Url context tool is not supported for models/gemini-2.0-flash.',
    },
    {
      name: 'urlContext on an image model',
      model: 'gemini-2.5-flash-image',
      body: { tools: [{ urlContext: {} }] },
      want: 'Url context tool is not supported for models/gemini-2.5-flash-image.',
    },
    {
      name: 'googleSearch on 2.0 Flash-Lite',
      model: 'gemini-2.0-flash-lite',
      body: { tools: [{ googleSearch: {} }] },
      want: 'Search Grounding is not supported for models/gemini-2.0-flash-lite.',
    },
    { name: 'googleSearch on 2.0 Flash', model: 'gemini-2.0-flash', body: { tools: [{ google_search: {} }] }, want: null },
    {
      name: 'per-part mediaResolution on Gemini 3',
      model: 'gemini-3-flash-preview',
      body: { contents: [{ role: 'user', parts: [{ inlineData: { mimeType: 'image/png', data: 'AAAA' }, mediaResolution: { level: 'MEDIA_RESOLUTION_HIGH' } }] }] },
      want: null,
    },
    {
      name: 'per-part mediaResolution on 2.5',
      model: 'gemini-2.5-flash',
      body: { contents: [{ role: 'user', parts: [{ inlineData: { mimeType: 'image/png', data: 'AAAA' }, mediaResolution: { level: 'MEDIA_RESOLUTION_LOW' } }] }] },
      want: 'Part-level media resolution is not supported for models/gemini-2.5-flash.',
    },
    { name: 'request-wide mediaResolution on 2.5', model: 'gemini-2.5-flash', body: { generationConfig: { mediaResolution: 'MEDIA_RESOLUTION_LOW' } }, want: null },
    {
      name: 'videoMetadata beside fileData',
      model: 'gemini-2.5-flash',
      body: { contents: [{ role: 'user', parts: [{ fileData: { fileUri: 'https://www.youtube.com/watch?v=x' }, videoMetadata: { startOffset: '10s', fps: 2 } }] }] },
      want: null,
    },
    {
      name: 'videoMetadata on a text part',
      model: 'gemini-2.5-flash',
      body: { contents: [{ role: 'user', parts: [{ text: 'x', videoMetadata: { startOffset: '10s' } }] }] },
      want: '* GenerateContentRequest.contents[0].parts[0].video_metadata: video_metadata requires inline_data or file_data.\n',
    },
    { name: 'logprobs on 2.0 Flash', model: 'gemini-2.0-flash', body: { generationConfig: { responseLogprobs: true, logprobs: 5 } }, want: null },
    {
      name: 'logprobs on 2.5 Pro (python-genai#1921)',
      model: 'gemini-2.5-pro',
      body: { generationConfig: { responseLogprobs: true } },
      want: 'Logprobs is not enabled for models/gemini-2.5-pro',
    },
    {
      name: 'logprobs without responseLogprobs',
      model: 'gemini-2.0-flash',
      body: { generationConfig: { logprobs: 2 } },
      want: 'logprobs is only valid if response_logprobs is true.',
    },
    {
      name: 'logprobs above 20',
      model: 'gemini-2.0-flash',
      body: { generationConfig: { responseLogprobs: true, logprobs: 21 } },
      want: 'logprobs must be in the range [0, 20].',
    },
    { name: 'three candidates on 2.5', model: 'gemini-2.5-flash', body: { generationConfig: { candidateCount: 3 } }, want: null },
    {
      name: 'two candidates on Gemini 3 (python-genai#1723)',
      model: 'gemini-3-flash-preview',
      body: { generationConfig: { candidateCount: 2 } },
      want: 'Multiple candidates is not enabled for this model',
    },
    { name: 'flex on 2.5 Flash', model: 'gemini-2.5-flash', body: { serviceTier: 'flex' }, want: null },
    { name: 'priority on 3.5 Flash', model: 'gemini-3.5-flash', body: { service_tier: 'priority' }, want: null },
    { name: 'standard anywhere', model: 'gemini-2.0-flash', body: { serviceTier: 'standard' }, want: null },
    {
      name: 'flex on 2.0 Flash',
      model: 'gemini-2.0-flash',
      body: { serviceTier: 'flex' },
      want: 'Service tier flex is not supported for models/gemini-2.0-flash.',
    },
    {
      name: 'the retired SERVICE_TIER_FLEX spelling',
      model: 'gemini-2.5-flash',
      body: { serviceTier: 'SERVICE_TIER_FLEX' },
      want: 'Invalid value at \'service_tier\' (type.googleapis.com/google.ai.generativelanguage.v1beta.ServiceTier), "SERVICE_TIER_FLEX"',
    },
  ])('$name', ({ model, body, want }) => {
    expect(messageOf(body, model)).toStrictEqual(want);
  });
});
