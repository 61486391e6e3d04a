import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../errors.js';
import { convertFilePart, convertImageUrl, convertInputAudio, fileIdUrl, isYouTubeUrl, mediaLookupKind, providerFileId } from './media.js';

const BASE = 'http://127.0.0.1:9999';
const P = 'messages[0].content[1]';
const FILE = 'https://generativelanguage.googleapis.com/v1beta/files/abc-123';

describe('convertImageUrl', () => {
  it.each<{ name: string; input: { url: string; mime_type?: string }; media?: Map<string, never>; want: unknown }>([
    { name: 'png data URI', input: { url: 'data:image/png;base64,iVBO' }, want: { inlineData: { mimeType: 'image/png', data: 'iVBO' } } },
    { name: 'pdf', input: { url: 'data:application/pdf;base64,JVBE' }, want: { inlineData: { mimeType: 'application/pdf', data: 'JVBE' } } },
    { name: 'audio', input: { url: 'data:audio/mp3;base64,SUQz' }, want: { inlineData: { mimeType: 'audio/mp3', data: 'SUQz' } } },
    { name: 'video', input: { url: 'data:video/mp4;base64,AAAA' }, want: { inlineData: { mimeType: 'video/mp4', data: 'AAAA' } } },
    { name: 'html → text/plain', input: { url: 'data:text/html;base64,PGI+' }, want: { inlineData: { mimeType: 'text/plain', data: 'PGI+' } } },
    {
      name: 'charset parameter',
      input: { url: 'data:text/csv;charset=utf-8;base64,YSxi' },
      want: { inlineData: { mimeType: 'text/plain', data: 'YSxi' } },
    },
    {
      name: 'provider file URL with explicit mime',
      input: { url: FILE, mime_type: 'video/mp4' },
      want: { fileData: { mimeType: 'video/mp4', fileUri: FILE } },
    },
    {
      name: 'provider file URL with looked-up mime',
      input: { url: FILE },
      media: new Map([[FILE, { kind: 'file', mimeType: 'application/pdf' }]]) as never,
      want: { fileData: { mimeType: 'application/pdf', fileUri: FILE } },
    },
    {
      name: 'file on the configured base URL',
      input: { url: `${BASE}/v1beta/files/x1`, mime_type: 'image/png' },
      want: { fileData: { mimeType: 'image/png', fileUri: `${BASE}/v1beta/files/x1` } },
    },
    {
      name: 'YouTube',
      input: { url: 'https://www.youtube.com/watch?v=9hE5-98ZeCg' },
      want: { fileData: { fileUri: 'https://www.youtube.com/watch?v=9hE5-98ZeCg' } },
    },
    {
      name: 'fetched URL inlined',
      input: { url: 'https://example.com/cat.png' },
      media: new Map([['https://example.com/cat.png', { kind: 'inline', mimeType: 'image/png', data: 'iVBO' }]]) as never,
      want: { inlineData: { mimeType: 'image/png', data: 'iVBO' } },
    },
  ])('$name', ({ input, media, want }) => {
    expect(convertImageUrl(input, P, { baseUrl: BASE, ...(media ? { media } : {}) })).toStrictEqual(want);
  });

  it.each([
    { name: 'unsupported type', url: 'data:image/gif;base64,R0lG', code: 'unsupported_media_type' },
    { name: 'not base64 encoded', url: 'data:image/png,hello', code: 'invalid_media' },
    { name: 'payload not base64', url: 'data:image/png;base64,@@@', code: 'invalid_media' },
    { name: 'no comma', url: 'data:image/png;base64', code: 'invalid_media' },
    { name: 'plain http URL without fetcher', url: 'https://example.com/cat.png', code: 'media_url_not_allowed' },
    { name: 'gs URL', url: 'gs://bucket/x.png', code: 'invalid_media' },
    { name: 'file without mime', url: FILE, code: 'invalid_media' },
  ])('400: $name', ({ url, code }) => {
    let err: unknown;
    try {
      convertImageUrl({ url }, P, { baseUrl: BASE });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InvalidRequestError);
    expect([(err as InvalidRequestError).param, (err as InvalidRequestError).code]).toStrictEqual([P, code]);
  });
});

describe('convertInputAudio', () => {
  it.each([
    { input: { data: 'UklG', format: 'wav' }, want: { inlineData: { mimeType: 'audio/wav', data: 'UklG' } } },
    { input: { data: 'SUQz', format: 'mp3' }, want: { inlineData: { mimeType: 'audio/mp3', data: 'SUQz' } } },
  ])('$input.format', ({ input, want }) => {
    expect(convertInputAudio(input, P)).toStrictEqual(want);
  });
  it('unknown format → 400', () => {
    expect(() => convertInputAudio({ data: 'AAAA', format: 'midi' }, P)).toThrow(InvalidRequestError);
  });
});

describe('URL classification', () => {
  it.each([
    { url: FILE, want: 'abc-123' },
    { url: `${BASE}/v1beta/files/x1`, want: 'x1' },
    { url: 'https://evil.example/v1beta/files/x1', want: undefined },
    { url: `${FILE}/extra`, want: undefined },
    { url: `${BASE}/upload/v1beta/files/x1/../../../v1beta/files/x2`, want: 'x2' },
  ])('providerFileId $url', ({ url, want }) => {
    expect(providerFileId(url, BASE)).toStrictEqual(want);
  });
  it.each([
    { url: 'https://www.youtube.com/watch?v=abc', want: true },
    { url: 'https://youtu.be/abc', want: true },
    { url: 'https://youtube.com/shorts/abc', want: true },
    { url: 'https://www.youtube.com/', want: false },
    { url: 'https://notyoutube.com/watch?v=abc', want: false },
  ])('isYouTubeUrl $url', ({ url, want }) => {
    expect(isYouTubeUrl(url)).toStrictEqual(want);
  });
  it.each([
    { url: 'data:image/png;base64,AAAA', mime: undefined, want: undefined },
    { url: FILE, mime: undefined, want: 'file-metadata' },
    { url: FILE, mime: 'image/png', want: undefined },
    { url: 'https://youtu.be/abc', mime: undefined, want: undefined },
    { url: 'https://example.com/a.png', mime: undefined, want: 'fetch' },
  ])('mediaLookupKind $url', ({ url, mime, want }) => {
    expect(mediaLookupKind(url, mime, BASE)).toStrictEqual(want);
  });
});

describe('convertFilePart', () => {
  const ctx = { baseUrl: BASE, media: new Map([[fileIdUrl('abc-123', BASE), { kind: 'file' as const, mimeType: 'application/pdf' }]]) };
  it.each([
    { name: 'data URI', file: { file_data: 'data:application/pdf;base64,JVBE' }, want: { inlineData: { mimeType: 'application/pdf', data: 'JVBE' } } },
    { name: 'bare base64 typed by filename', file: { file_data: 'JVBE', filename: 'x.PDF' }, want: { inlineData: { mimeType: 'application/pdf', data: 'JVBE' } } },
    { name: 'file_id of an uploaded file', file: { file_id: 'abc-123' }, want: { fileData: { mimeType: 'application/pdf', fileUri: `${BASE}/v1beta/files/abc-123` } } },
  ])('$name', ({ file, want }) => {
    expect(convertFilePart(file, 'messages[0].content[0]', ctx)).toStrictEqual(want);
  });
  it.each([
    { name: 'bare base64 without a filename', file: { file_data: 'JVBE' }, param: 'messages[0].content[0].file.filename' },
    { name: 'bare data that is not base64', file: { file_data: 'not base64!', filename: 'x.pdf' }, param: 'messages[0].content[0].file.file_data' },
    { name: 'a file id that is not ours', file: { file_id: 'file-ABC/../x' }, param: 'messages[0].content[0].file.file_id' },
  ])('refuses $name naming $param', ({ file, param }) => {
    let caught: unknown;
    try {
      convertFilePart(file, 'messages[0].content[0]', ctx);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(InvalidRequestError);
    expect((caught as InvalidRequestError).param).toBe(param);
  });
});
