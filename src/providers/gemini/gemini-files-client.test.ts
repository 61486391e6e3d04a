import { Readable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../emulator/index.js';
import { InvalidRequestError, UpstreamError } from '../../errors.js';
import { createGeminiFilesClient, exactChunks } from './gemini-files-client.js';

const KEY = 'test-provider-key-files';

describe('exactChunks', () => {
  async function collect(pieces: string[], total: number, size: number): Promise<string[]> {
    const out: string[] = [];
    for await (const chunk of exactChunks(Readable.from(pieces.map((p) => Buffer.from(p))), total, size)) out.push(chunk.toString());
    return out;
  }

  it.each([
    { name: 'one piece, several chunks', pieces: ['abcdefghij'], total: 10, size: 4, want: ['abcd', 'efgh', 'ij'] },
    { name: 'pieces across chunk borders', pieces: ['ab', 'cde', 'f', 'ghij'], total: 10, size: 3, want: ['abc', 'def', 'ghi', 'j'] },
    { name: 'exact multiple', pieces: ['abcd', 'efgh'], total: 8, size: 4, want: ['abcd', 'efgh'] },
    { name: 'smaller than a chunk', pieces: ['xy'], total: 2, size: 8, want: ['xy'] },
    { name: 'empty', pieces: [], total: 0, size: 8, want: [''] },
  ])('$name', async ({ pieces, total, size, want }) => {
    expect(await collect(pieces, total, size)).toStrictEqual(want);
  });

  it.each([
    { name: 'shorter than declared', pieces: ['abc'], total: 5 },
    { name: 'longer than declared', pieces: ['abcdef'], total: 5 },
    { name: 'bytes when zero was declared', pieces: ['a'], total: 0 },
  ])('refuses a source $name', async ({ pieces, total }) => {
    await expect(collect(pieces, total, 4)).rejects.toBeInstanceOf(InvalidRequestError);
  });
});

describe('createGeminiFilesClient against the emulator', () => {
  let emulator: Emulator;
  beforeAll(async () => {
    emulator = await startEmulator({ apiKeys: [KEY], fileProcessingPolls: 0, maxFileBytes: 1000 });
  });
  afterAll(() => emulator.close());
  beforeEach(() => emulator.reset());

  it('uploads in chunks with the resumable protocol and reads the file back', async () => {
    const client = createGeminiFilesClient({ chunkBytes: 16 });
    const bytes = Buffer.from('0123456789abcdefghijklmnopqrstuvwxyzABCD'); // 40 bytes → 16 + 16 + 8
    const file = await client.upload({
      apiKey: KEY,
      baseUrl: emulator.url,
      displayName: 'notes.txt',
      mimeType: 'text/plain',
      size: bytes.length,
      body: Readable.from([bytes.subarray(0, 10), bytes.subarray(10)]),
    });
    expect(file).toMatchObject({ displayName: 'notes.txt', mimeType: 'text/plain', sizeBytes: '40', state: 'ACTIVE' });

    const [start, ...chunks] = emulator.requests;
    expect(start).toMatchObject({
      method: 'POST',
      path: '/upload/v1beta/files',
      body: { file: { displayName: 'notes.txt' } },
    });
    expect(start!.headers).toMatchObject({
      'x-goog-api-key': KEY,
      'x-goog-upload-protocol': 'resumable',
      'x-goog-upload-command': 'start',
      'x-goog-upload-header-content-length': '40',
      'x-goog-upload-header-content-type': 'text/plain',
    });
    expect(start!.path.includes(KEY)).toBe(false);
    expect(
      chunks.map((r) => ({
        command: r.headers['x-goog-upload-command'],
        offset: r.headers['x-goog-upload-offset'],
        bytes: r.bodyBytes,
        upload: r.path.startsWith('/upload/v1beta/files?upload_id='),
      })),
    ).toStrictEqual([
      { command: 'upload', offset: '0', bytes: 16, upload: true },
      { command: 'upload', offset: '16', bytes: 16, upload: true },
      { command: 'upload, finalize', offset: '32', bytes: 8, upload: true },
    ]);

    const id = file.name.slice('files/'.length);
    expect(await client.getFile({ apiKey: KEY, baseUrl: emulator.url, id })).toStrictEqual(file);
    expect(emulator.requests.at(-1)).toMatchObject({ method: 'GET', path: `/v1beta/files/${id}` });
  });

  it("passes the provider's refusal through with its status and message", async () => {
    const client = createGeminiFilesClient();
    const err = await client
      .upload({ apiKey: KEY, baseUrl: emulator.url, displayName: 'big.png', mimeType: 'image/png', size: 5000, body: Readable.from([Buffer.alloc(5000)]) })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UpstreamError);
    expect((err as UpstreamError).status).toBe(400);
    expect((err as UpstreamError).message).toBe('File size 5000 exceeds the limit of 1000 bytes.');
  });

  it('maps a wrong key to the provider error without echoing the key', async () => {
    const client = createGeminiFilesClient();
    const wrong = 'wrong-key-value-123';
    const err = (await client.getFile({ apiKey: wrong, baseUrl: emulator.url, id: 'abc' }).catch((e: unknown) => e)) as UpstreamError;
    expect(err).toBeInstanceOf(UpstreamError);
    expect(err.status).toBeGreaterThanOrEqual(400);
    expect(err.status).toBeLessThan(500);
    expect(err.message.includes(wrong)).toBe(false);
  });

  it('answers 403 for a file that does not exist', async () => {
    const client = createGeminiFilesClient();
    const err = (await client.getFile({ apiKey: KEY, baseUrl: emulator.url, id: 'nope' }).catch((e: unknown) => e)) as UpstreamError;
    expect({ status: err.status, message: err.message }).toStrictEqual({
      status: 403,
      message: 'You do not have permission to access the File nope or it may not exist.',
    });
  });

  it('reports an unreachable provider as a 502 connection error', async () => {
    const client = createGeminiFilesClient();
    const err = (await client.getFile({ apiKey: KEY, baseUrl: 'http://127.0.0.1:1', id: 'abc' }).catch((e: unknown) => e)) as UpstreamError;
    expect({ status: err.status, reason: err.reason }).toStrictEqual({ status: 502, reason: 'connection_error' });
  });
});
