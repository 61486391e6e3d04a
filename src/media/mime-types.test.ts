import { describe, expect, it } from 'vitest';
import { mimeTypeFromFilename, normalizeMediaMimeType } from './mime-types.js';

describe('normalizeMediaMimeType', () => {
  it.each([
    { input: 'image/png', want: 'image/png' },
    { input: 'IMAGE/JPEG', want: 'image/jpeg' },
    { input: 'audio/mpeg; codecs=mp3', want: 'audio/mpeg' },
    { input: 'video/quicktime', want: 'video/quicktime' },
    { input: 'application/pdf', want: 'application/pdf' },
    { input: 'text/html; charset=utf-8', want: 'text/plain' },
    { input: 'text/csv', want: 'text/plain' },
    { input: 'application/xhtml+xml', want: 'text/plain' },
    { input: 'image/gif', want: undefined },
    { input: 'application/zip', want: undefined },
    { input: 'application/octet-stream', want: undefined },
    { input: '', want: undefined },
  ])('$input → $want', ({ input, want }) => {
    expect(normalizeMediaMimeType(input)).toStrictEqual(want);
  });
});

describe('mimeTypeFromFilename', () => {
  it.each([
    { input: 'cat.PNG', want: 'image/png' },
    { input: 'clip.final.mp4', want: 'video/mp4' },
    { input: 'paper.pdf', want: 'application/pdf' },
    { input: 'notes.md', want: 'text/markdown' },
    { input: 'archive.zip', want: undefined },
    { input: 'README', want: undefined },
    { input: 'trailing.', want: undefined },
  ])('$input → $want', ({ input, want }) => {
    expect(mimeTypeFromFilename(input)).toStrictEqual(want);
  });
});
