/**
 * `POST /v1/files` and `GET /v1/files/{id}` through real HTTP: official `openai` SDK and raw
 * fetch + FormData → gateway → Gemini emulator's files API (gemini-wire §13). Asserts the file
 * object the client got, the exact upstream requests, and that spooled parts leave no temp file.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import type { IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI, { toFile } from 'openai';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { settingsWithDefaults } from '../../src/config/settings.js';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { AuthError, InvalidRequestError } from '../../src/errors.js';
import { createGeminiFilesClient } from '../../src/providers/gemini/gemini-files-client.js';
import { createFilesRoutes } from '../../src/files/files-route.js';
import { startGateway, type RunningGateway } from '../../src/gateway/start-gateway.js';

const GATEWAY_KEY = 'test-gateway-key';
const PROVIDER_KEY = 'test-provider-key-123';
const KiB = 1024;
const GATEWAY_MAX = 1024 * KiB;
const EMULATOR_MAX = 512 * KiB;
const CHUNK = 128 * KiB;

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

let emulator: Emulator;
let gateway: RunningGateway;
let client: OpenAI;
let spoolDir: string;
let workDir: string;
const auth = { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-provider': 'google', authorization: `Bearer ${PROVIDER_KEY}` };

/** The simplest credential resolution: `x-gateway-provider: google` and the key in `Authorization`. */
function resolveProviderKey(headers: IncomingHttpHeaders) {
  if (headers['x-gateway-provider'] !== 'google') {
    throw new InvalidRequestError('missing x-gateway-provider header (e.g. "google")', { param: 'x-gateway-provider' });
  }
  const key = headers.authorization?.replace(/^bearer\s+/i, '').trim();
  if (!key) throw new AuthError('missing provider key: send it in the Authorization header');
  return { provider: 'google' as const, apiKey: key, baseUrl: emulator.url };
}

beforeAll(async () => {
  spoolDir = await mkdtemp(join(tmpdir(), 'sidegate-files-spool-'));
  workDir = await mkdtemp(join(tmpdir(), 'sidegate-files-work-'));
  emulator = await startEmulator({ port: 0, maxFileBytes: EMULATOR_MAX });
  const settings = settingsWithDefaults({ port: 0, geminiBaseUrl: emulator.url, apiKeys: [GATEWAY_KEY] });
  const routes = createFilesRoutes({
    settings,
    resolveProviderKey,
    // Small chunks and a small memory budget so the suite exercises multi-chunk uploads and
    // spooling to disk without megabytes of test data.
    filesClient: createGeminiFilesClient({ chunkBytes: CHUNK }),
    maxFileBytes: GATEWAY_MAX,
    memoryBytes: 64 * KiB,
    tmpDir: spoolDir,
  });
  gateway = await startGateway(settings, { routes, log: () => {} });
  client = new OpenAI({
    baseURL: `${gateway.url}/v1`,
    apiKey: PROVIDER_KEY,
    defaultHeaders: { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-provider': 'google' },
    maxRetries: 0,
  });
});

afterAll(async () => {
  await gateway?.close();
  await emulator?.close();
  await rm(spoolDir, { recursive: true, force: true });
  await rm(workDir, { recursive: true, force: true });
});

beforeEach(() => emulator.reset());
afterEach(async () => {
  expect(await readdir(spoolDir)).toStrictEqual([]);
});

function pseudoRandom(size: number): Buffer {
  const out = Buffer.alloc(size);
  let x = 12345;
  for (let i = 0; i < size; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    out[i] = x >> 16;
  }
  return out;
}

function form(parts: { purpose?: string; file?: { bytes: Buffer; name: string; type: string }; fieldName?: string }): FormData {
  const fd = new FormData();
  if (parts.purpose !== undefined) fd.append('purpose', parts.purpose);
  if (parts.file) fd.append(parts.fieldName ?? 'file', new Blob([parts.file.bytes], { type: parts.file.type }), parts.file.name);
  return fd;
}

async function postForm(body: FormData | string, headers: Record<string, string> = auth) {
  const res = await fetch(`${gateway.url}/v1/files`, { method: 'POST', headers, body });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('POST /v1/files', () => {
  it('uploads an image with the openai SDK and reads it back', async () => {
    const created = await client.files.create({ file: await toFile(PNG, 'cat.png', { type: 'image/png' }), purpose: 'user_data' });
    const id = created.id;
    expect(created).toStrictEqual({
      id,
      object: 'file',
      bytes: PNG.length,
      created_at: created.created_at,
      expires_at: created.created_at + 48 * 3600,
      filename: 'cat.png',
      purpose: 'user_data',
      status: 'processed',
      uri: `${emulator.url}/v1beta/files/${id}`,
      mime_type: 'image/png',
    });
    expect(id).toMatch(/^[a-z0-9-]{1,40}$/);

    // Exact upstream: the resumable start, then one `upload, finalize` chunk.
    const [start, chunk] = emulator.requests;
    expect(emulator.requests).toHaveLength(2);
    expect(start).toMatchObject({ method: 'POST', path: '/upload/v1beta/files', body: { file: { displayName: 'cat.png' } } });
    expect(start!.headers).toMatchObject({
      'x-goog-api-key': PROVIDER_KEY,
      'x-goog-upload-protocol': 'resumable',
      'x-goog-upload-command': 'start',
      'x-goog-upload-header-content-length': String(PNG.length),
      'x-goog-upload-header-content-type': 'image/png',
    });
    expect(start!.headers.authorization).toBeUndefined();
    expect(chunk!.headers).toMatchObject({ 'x-goog-upload-command': 'upload, finalize', 'x-goog-upload-offset': '0' });
    expect(chunk!.bodyBytes).toBe(PNG.length);
    expect(emulator.files.files.get(id)!.head).toStrictEqual(PNG.subarray(0, 64)); // the emulator keeps the first 64 bytes
    expect(emulator.files.files.get(id)!.resource.sha256Hash).toBe(createHash('sha256').update(PNG).digest('base64'));

    const read = await client.files.retrieve(id);
    expect(read).toStrictEqual(created);
    expect(emulator.requests.at(-1)).toMatchObject({ method: 'GET', path: `/v1beta/files/${id}` });
    expect(emulator.requests.at(-1)!.headers['x-goog-api-key']).toBe(PROVIDER_KEY);
  });

  it('streams a larger file from disk in chunks, typed by its extension', async () => {
    const bytes = pseudoRandom(300 * KiB);
    const path = join(workDir, 'clip.mp4');
    await writeFile(path, bytes);
    const created = await client.files.create({ file: createReadStream(path), purpose: 'user_data' });
    expect(created).toMatchObject({ filename: 'clip.mp4', bytes: bytes.length, mime_type: 'video/mp4', status: 'uploaded' });

    const chunks = emulator.requests.slice(1).map((r) => [r.headers['x-goog-upload-command'], r.headers['x-goog-upload-offset'], r.bodyBytes]);
    expect(chunks).toStrictEqual([
      ['upload', '0', CHUNK],
      ['upload', String(CHUNK), CHUNK],
      ['upload, finalize', String(2 * CHUNK), bytes.length - 2 * CHUNK],
    ]);
    const stored = emulator.files.files.get(created.id)!.resource;
    expect(stored.sha256Hash).toBe(createHash('sha256').update(bytes).digest('base64'));

    // Video is PROCESSING at first (gemini-wire §13.2); reading it back moves it to ACTIVE.
    await client.files.retrieve(created.id);
    expect((await client.files.retrieve(created.id)).status).toBe('processed');
  });

  it('accepts raw fetch + FormData, purpose after the file', async () => {
    const pdf = Buffer.from('%PDF-1.4\n%tiny\n');
    const fd = new FormData();
    fd.append('file', new Blob([pdf], { type: 'application/pdf' }), 'paper.pdf');
    fd.append('purpose', 'assistants');
    const { status, body } = await postForm(fd);
    expect(status).toBe(200);
    expect(body).toMatchObject({ object: 'file', filename: 'paper.pdf', bytes: pdf.length, purpose: 'assistants', mime_type: 'application/pdf' });

    const res = await fetch(`${gateway.url}/v1/files/${body.id as string}`, { headers: auth });
    expect(await res.json()).toMatchObject({ id: body.id, purpose: 'assistants', uri: `${emulator.url}/v1beta/files/${body.id as string}` });
  });

  it('uploads text as text/plain (DESIGN Decision 11)', async () => {
    const { status, body } = await postForm(form({ purpose: 'user_data', file: { bytes: Buffer.from('<p>hi</p>'), name: 'page.html', type: 'text/html' } }));
    expect({ status, mime: body.mime_type }).toStrictEqual({ status: 200, mime: 'text/plain' });
    expect(emulator.requests[0]!.headers['x-goog-upload-header-content-type']).toBe('text/plain');
  });
});

describe('POST /v1/files errors', () => {
  const png = { bytes: PNG, name: 'cat.png', type: 'image/png' };

  it.each([
    {
      name: 'unsupported type',
      body: () => form({ purpose: 'user_data', file: { bytes: Buffer.from('GIF89a'), name: 'anim.gif', type: 'image/gif' } }),
      status: 400,
      param: 'file',
      code: 'unsupported_file_type',
    },
    { name: 'missing file', body: () => form({ purpose: 'user_data' }), status: 400, param: 'file', code: 'missing_file' },
    { name: 'missing purpose', body: () => form({ file: png }), status: 400, param: 'purpose', code: 'missing_purpose' },
    { name: 'unknown purpose', body: () => form({ purpose: 'memes', file: png }), status: 400, param: 'purpose', code: 'invalid_purpose' },
    { name: 'file in another part', body: () => form({ purpose: 'user_data', file: png, fieldName: 'upload' }), status: 400, param: 'upload', code: 'invalid_file' },
    {
      name: 'empty file',
      body: () => form({ purpose: 'user_data', file: { bytes: Buffer.alloc(0), name: 'empty.png', type: 'image/png' } }),
      status: 400,
      param: 'file',
      code: 'empty_file',
    },
    { name: 'not multipart', body: () => '{"purpose":"user_data"}', status: 400, param: null, code: 'invalid_content_type' },
  ])('$name → $status, nothing sent upstream', async ({ body, status, param, code }) => {
    const res = await postForm(body(), typeof body() === 'string' ? { ...auth, 'content-type': 'application/json' } : auth);
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ error: { type: 'invalid_request_error', param, code } });
    expect(emulator.requests).toStrictEqual([]);
  });

  it('refuses a file over the limit with 413 (declared Content-Length)', async () => {
    const res = await postForm(form({ purpose: 'user_data', file: { bytes: Buffer.alloc(GATEWAY_MAX + 100 * KiB), name: 'big.png', type: 'image/png' } }));
    expect(res).toMatchObject({ status: 413, body: { error: { type: 'invalid_request_error', param: 'file', code: 'file_too_large' } } });
    expect(emulator.requests).toStrictEqual([]);
  });

  it('refuses a file over the limit with 413 while streaming (chunked body)', async () => {
    const fd = form({ purpose: 'user_data', file: { bytes: Buffer.alloc(GATEWAY_MAX + 1), name: 'big.png', type: 'image/png' } });
    const encoded = new Response(fd);
    const res = await fetch(`${gateway.url}/v1/files`, {
      method: 'POST',
      headers: { ...auth, 'content-type': encoded.headers.get('content-type')! },
      body: encoded.body,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ error: { param: 'file', code: 'file_too_large' } });
    expect(emulator.requests).toStrictEqual([]);
  });

  it("passes the provider's refusal through with its status and message", async () => {
    const res = await postForm(form({ purpose: 'user_data', file: { bytes: Buffer.alloc(EMULATOR_MAX + 1), name: 'big.png', type: 'image/png' } }));
    expect(res).toStrictEqual({
      status: 400,
      body: { error: { message: `File size ${EMULATOR_MAX + 1} exceeds the limit of ${EMULATOR_MAX} bytes.`, type: 'invalid_request_error', param: null, code: 'invalid_argument' } },
    });
  });

  it('needs the gateway key and a provider key', async () => {
    const noGateway = await postForm(form({ purpose: 'user_data', file: png }), { 'x-gateway-provider': 'google', authorization: `Bearer ${PROVIDER_KEY}` });
    expect(noGateway.status).toBe(401);
    const noProvider = await postForm(form({ purpose: 'user_data', file: png }), { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-provider': 'google' });
    expect(noProvider).toMatchObject({ status: 401, body: { error: { type: 'authentication_error' } } });
    expect(emulator.requests).toStrictEqual([]);
  });
});

describe('GET /v1/files/{id} errors', () => {
  it("answers the provider's 403 for an unknown file", async () => {
    await expect(client.files.retrieve('no-such-file')).rejects.toMatchObject({
      status: 403,
      message: expect.stringContaining('You do not have permission to access the File no-such-file or it may not exist.'),
    });
  });

  it('refuses an id that is not a Gemini file id without calling upstream', async () => {
    const res = await fetch(`${gateway.url}/v1/files/Not_An_Id`, { headers: auth });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { param: 'file_id', code: 'invalid_file_id' } });
    expect(emulator.requests).toStrictEqual([]);
  });
});
