import { describe, expect, it } from 'vitest';
import { uploadMimeType } from './parse-upload-form.js';

describe('uploadMimeType', () => {
  it.each([
    { partType: 'image/png', filename: 'cat.png', want: 'image/png' },
    { partType: 'application/octet-stream', filename: 'clip.mp4', want: 'video/mp4' },
    { partType: 'text/plain', filename: 'cat.jpg', want: 'image/jpeg' }, // busboy's default for an untyped part
    { partType: 'text/plain', filename: 'notes.txt', want: 'text/plain' },
    { partType: 'text/plain', filename: 'README', want: 'text/plain' },
    { partType: 'text/html; charset=utf-8', filename: 'page.html', want: 'text/plain' },
    { partType: 'application/pdf', filename: 'x', want: 'application/pdf' },
    { partType: 'image/gif', filename: 'anim.gif', want: undefined },
    { partType: 'application/octet-stream', filename: 'blob.bin', want: undefined },
    { partType: 'application/zip', filename: 'cat.png', want: undefined },
  ])('$partType + $filename → $want', ({ partType, filename, want }) => {
    expect(uploadMimeType(partType, filename)).toStrictEqual(want);
  });
});
