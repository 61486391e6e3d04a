import { describe, expect, it } from 'vitest';
import { toOpenAIFile, type OpenAIFileObject } from './to-openai-file.js';
import type { GeminiFile } from '../providers/gemini/gemini-files-client.js';

const BASE = 'http://127.0.0.1:8788';

const cases: Array<{ name: string; input: GeminiFile; want: OpenAIFileObject }> = [
  {
    name: 'active image',
    input: {
      name: 'files/abc-123',
      displayName: 'cat.png',
      mimeType: 'image/png',
      sizeBytes: '1048576',
      createTime: '2026-05-01T10:00:00.123456Z',
      expirationTime: '2026-05-03T10:00:00.123456Z',
      uri: 'https://generativelanguage.googleapis.com/v1beta/files/abc-123',
      state: 'ACTIVE',
    },
    want: {
      id: 'abc-123',
      object: 'file',
      bytes: 1048576,
      created_at: 1777629600,
      expires_at: 1777802400,
      filename: 'cat.png',
      purpose: 'user_data',
      status: 'processed',
      uri: `${BASE}/v1beta/files/abc-123`,
      mime_type: 'image/png',
    },
  },
  {
    name: 'processing video without display name',
    input: { name: 'files/v1', mimeType: 'video/mp4', sizeBytes: '7', createTime: '2026-05-01T10:00:00Z', state: 'PROCESSING' },
    want: {
      id: 'v1',
      object: 'file',
      bytes: 7,
      created_at: 1777629600,
      filename: 'v1',
      purpose: 'user_data',
      status: 'uploaded',
      uri: `${BASE}/v1beta/files/v1`,
      mime_type: 'video/mp4',
    },
  },
  {
    name: 'failed file keeps the reason',
    input: { name: 'files/bad', mimeType: 'application/pdf', createTime: '2026-05-01T10:00:00Z', state: 'FAILED', error: { code: 3, message: 'corrupt PDF' } },
    want: {
      id: 'bad',
      object: 'file',
      bytes: 0,
      created_at: 1777629600,
      filename: 'bad',
      purpose: 'user_data',
      status: 'error',
      status_details: 'corrupt PDF',
      uri: `${BASE}/v1beta/files/bad`,
      mime_type: 'application/pdf',
    },
  },
];

describe('toOpenAIFile', () => {
  it.each(cases)('$name', ({ input, want }) => {
    expect(toOpenAIFile(input, { baseUrl: BASE, purpose: 'user_data' })).toStrictEqual(want);
  });
});
