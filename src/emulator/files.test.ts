import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from './index.js';
import { KEY, post } from './test-helpers.js';

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator({ maxFileBytes: 1_000_000 });
});
afterAll(() => emu.close());
beforeEach(() => emu.reset());

async function startUpload(size: number, mime: string, file: Record<string, unknown> = { displayName: 'clip' }): Promise<Response> {
  return post(`${emu.url}/upload/v1beta/files`, { file }, {
    'x-goog-upload-protocol': 'resumable',
    'x-goog-upload-command': 'start',
    'x-goog-upload-header-content-length': String(size),
    'x-goog-upload-header-content-type': mime,
  });
}

function sendChunk(url: string, data: Buffer, offset: number, command: string): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'x-goog-upload-command': command, 'x-goog-upload-offset': String(offset) },
    body: data,
  });
}

const getFile = (id: string) => fetch(`${emu.url}/v1beta/files/${id}`, { headers: { 'x-goog-api-key': KEY } });

describe('resumable upload (§13.1)', () => {
  it('start → upload → upload, finalize gives a File with string sizeBytes, sha256 and 48 h expiry', async () => {
    const content = Buffer.alloc(3000, 7);
    const start = await startUpload(content.length, 'video/mp4');
    expect(start.status).toBe(200);
    expect(start.headers.get('x-goog-upload-status')).toBe('active');
    const uploadUrl = start.headers.get('x-goog-upload-url')!;
    expect(uploadUrl).toMatch(new RegExp(`^${emu.url}/upload/v1beta/files\\?upload_id=[0-9a-f]+&upload_protocol=resumable$`));

    const mid = await sendChunk(uploadUrl, content.subarray(0, 1000), 0, 'upload');
    expect(mid.headers.get('x-goog-upload-status')).toBe('active');
    const fin = await sendChunk(uploadUrl, content.subarray(1000), 1000, 'upload, finalize');
    expect(fin.status).toBe(200);
    expect(fin.headers.get('x-goog-upload-status')).toBe('final');
    const { file } = (await fin.json()) as { file: Record<string, string> };
    const id = file.name!.slice('files/'.length);
    expect(file).toStrictEqual({
      name: `files/${id}`,
      displayName: 'clip',
      mimeType: 'video/mp4',
      sizeBytes: '3000',
      createTime: file.createTime,
      updateTime: file.updateTime,
      expirationTime: file.expirationTime,
      sha256Hash: createHash('sha256').update(content).digest('base64'),
      uri: `${emu.url}/v1beta/files/${id}`,
      state: 'PROCESSING',
      source: 'UPLOADED',
    });
    expect(Date.parse(file.expirationTime!) - Date.parse(file.createTime!)).toBe(48 * 3600 * 1000);
    expect(emu.files.files.get(id)!.head).toStrictEqual(content.subarray(0, 64));
    // The upload chunk was recorded by size only.
    expect(emu.requests.at(-1)!.bodyBytes).toBe(2000);
  });

  it('moves PROCESSING → ACTIVE across polls, refuses use while PROCESSING', async () => {
    const start = await startUpload(4, 'application/pdf', { name: 'files/my-doc' });
    await sendChunk(start.headers.get('x-goog-upload-url')!, Buffer.from('%PDF'), 0, 'upload, finalize');
    const gen = `${emu.url}/v1beta/models/gemini-2.5-flash:generateContent`;
    const useIt = { contents: [{ role: 'user', parts: [{ fileData: { mimeType: 'application/pdf', fileUri: `${emu.url}/v1beta/files/my-doc` } }] }] };
    const early = await post(gen, useIt);
    expect(early.status).toBe(400);
    expect(((await early.json()) as any).error).toMatchObject({
      status: 'FAILED_PRECONDITION',
      message: 'The File my-doc is not in an ACTIVE state and usage is not allowed.',
    });
    expect(((await (await getFile('my-doc')).json()) as any).state).toBe('PROCESSING');
    expect(((await (await getFile('my-doc')).json()) as any).state).toBe('ACTIVE');
    const ok = await post(gen, useIt);
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as any).candidates[0].content.parts[0].text).toBe(
      `Echo: [fileData application/pdf ${emu.url}/v1beta/files/my-doc]`,
    );
  });

  it('images are ACTIVE at once; list, delete, and 403 for a missing file', async () => {
    const start = await startUpload(3, 'image/png');
    const fin = await sendChunk(start.headers.get('x-goog-upload-url')!, Buffer.from('abc'), 0, 'upload, finalize');
    const { file } = (await fin.json()) as { file: { name: string; state: string } };
    expect(file.state).toBe('ACTIVE');
    const list = (await (await fetch(`${emu.url}/v1beta/files?key=${KEY}`)).json()) as { files: Array<{ name: string }> };
    expect(list.files.map((f) => f.name)).toStrictEqual([file.name]);
    const id = file.name.slice(6);
    const del = await fetch(`${emu.url}/v1beta/files/${id}`, { method: 'DELETE', headers: { 'x-goog-api-key': KEY } });
    expect(await del.json()).toStrictEqual({});
    const gone = await getFile(id);
    expect(gone.status).toBe(403);
    expect(((await gone.json()) as any).error.message).toBe(`You do not have permission to access the File ${id} or it may not exist.`);
    expect(await (await fetch(`${emu.url}/v1beta/files?key=${KEY}`)).json()).toStrictEqual({});
  });

  it('rejects a wrong offset, a size mismatch and files over the limit', async () => {
    const s1 = await startUpload(10, 'text/plain');
    const url1 = s1.headers.get('x-goog-upload-url')!;
    expect((await sendChunk(url1, Buffer.from('abc'), 5, 'upload')).status).toBe(400);
    const mismatch = await sendChunk(url1, Buffer.from('abc'), 0, 'upload, finalize');
    expect(mismatch.status).toBe(400);
    expect(((await mismatch.json()) as any).error.message).toBe('Upload size mismatch: declared 10 bytes, received 3.');
    expect((await startUpload(2_000_000, 'video/mp4')).status).toBe(400);
  });

  it('requires the API key to start an upload', async () => {
    const res = await fetch(`${emu.url}/upload/v1beta/files`, {
      method: 'POST',
      headers: { 'x-goog-upload-protocol': 'resumable', 'x-goog-upload-command': 'start' },
      body: '{}',
    });
    expect(res.status).toBe(403);
  });
});
