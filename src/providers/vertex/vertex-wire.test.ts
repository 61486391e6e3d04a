/** The Vertex request differences, through the shared translation as the provider runs it. */
import { describe, expect, it } from 'vitest';
import type { ChatCompletionRequest } from '../../openai/chat-request.js';
import { convertRequest } from '../gemini/convert-request.js';
import type { Target } from '../provider.js';
import { VERTEX_WIRE, vertexAuthHeaders } from './vertex-wire.js';

const target: Target = {
  provider: 'vertex-ai',
  apiKey: 'ya29.token',
  baseUrl: 'https://us-central1-aiplatform.googleapis.com/v1/projects/p/locations/us-central1/publishers/google/models',
  strictCompliance: true,
  timeoutMs: 1000,
  vertex: { projectId: 'p', region: 'us-central1' },
};

function vertexBody(request: ChatCompletionRequest) {
  const media = VERTEX_WIRE.resolveMedia!(request, target);
  const { body, warnings } = convertRequest(request, target, { media });
  return { body: VERTEX_WIRE.finishBody!(body, request, warnings), warnings };
}

const req = (extra: Partial<ChatCompletionRequest>): ChatCompletionRequest => ({
  model: 'gemini-2.5-flash',
  messages: [{ role: 'user', content: 'Hi' }],
  ...extra,
});
const image = (url: string, mime?: string): ChatCompletionRequest =>
  req({ messages: [{ role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image_url', image_url: { url, ...(mime ? { mime_type: mime } : {}) } }] }] });

describe('Vertex request differences', () => {
  it.each<{ name: string; input: ChatCompletionRequest; want: unknown }>([
    {
      name: 'every contents entry has a role, system text goes to systemInstruction',
      input: req({ messages: [{ role: 'system', content: 'S' }, { role: 'user', content: 'Hi' }, { role: 'assistant', content: 'Yo' }, { role: 'user', content: 'Again' }] }),
      want: {
        body: {
          contents: [
            { role: 'user', parts: [{ text: 'Hi' }] },
            { role: 'model', parts: [{ text: 'Yo' }] },
            { role: 'user', parts: [{ text: 'Again' }] },
          ],
          systemInstruction: { parts: [{ text: 'S' }] },
        },
        warnings: [],
      },
    },
    {
      name: 'a gs:// URI goes as fileData with the MIME type of its extension',
      input: image('gs://bucket/cat.png'),
      want: { body: { contents: [{ role: 'user', parts: [{ text: 'look' }, { fileData: { mimeType: 'image/png', fileUri: 'gs://bucket/cat.png' } }] }] }, warnings: [] },
    },
    {
      name: 'an https URL goes as fileData, mime_type wins over the extension',
      input: image('https://example.com/doc.bin', 'application/pdf'),
      want: {
        body: { contents: [{ role: 'user', parts: [{ text: 'look' }, { fileData: { mimeType: 'application/pdf', fileUri: 'https://example.com/doc.bin' } }] }] },
        warnings: [],
      },
    },
    {
      name: 'request metadata becomes labels, and is no longer an ignored parameter',
      input: req({ metadata: { team: 'search', env: 'prod-1' } }),
      want: { body: { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }], labels: { team: 'search', env: 'prod-1' } }, warnings: [] },
    },
    {
      name: "service_tier 'default' is what Vertex serves: no serviceTier field (AI Studio's alone)",
      input: req({ service_tier: 'default' }),
      want: { body: { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] }, warnings: [] },
    },
  ])('$name', ({ input, want }) => {
    expect(vertexBody(input)).toStrictEqual(want);
  });

  it.each<{ name: string; input: ChatCompletionRequest; param: string; message: RegExp }>([
    { name: 'an AI Studio file URL', input: image('https://generativelanguage.googleapis.com/v1beta/files/abc123'), param: 'messages[0].content[1]', message: /no Files API/ },
    {
      name: 'a file_id part',
      input: req({ messages: [{ role: 'user', content: [{ type: 'file', file: { file_id: 'abc123' } }] }] }),
      param: 'messages[0].content[0].file.file_id',
      message: /no Files API/,
    },
    { name: 'a gs:// URI whose type cannot be told', input: image('gs://bucket/blob'), param: 'messages[0].content[1]', message: /set image_url.mime_type/ },
    { name: "service_tier 'flex' (chosen by a header on Vertex)", input: req({ service_tier: 'flex' }), param: 'service_tier', message: /not available for Vertex AI/ },
    { name: "service_tier 'priority'", input: req({ service_tier: 'priority' }), param: 'service_tier', message: /not available for Vertex AI/ },
    { name: 'a label key with capitals', input: req({ metadata: { Team: 'x' } }), param: 'metadata.Team', message: /labels need/ },
    { name: 'a label value with a space', input: req({ metadata: { team: 'a b' } }), param: 'metadata.team', message: /labels need/ },
  ])('400 for $name, naming $param', ({ input, param, message }) => {
    expect(() => vertexBody(input)).toThrow(expect.objectContaining({ status: 400, param, message: expect.stringMatching(message) }));
  });

  it.each([
    ['ya29.a0-token', { authorization: 'Bearer ya29.a0-token' }],
    [`AIza${'k'.repeat(35)}`, { 'x-goog-api-key': `AIza${'k'.repeat(35)}` }],
  ])('credential header for %s', (secret, want) => {
    expect(vertexAuthHeaders(secret)).toStrictEqual(want);
  });
});
