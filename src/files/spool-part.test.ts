import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PartTooLargeError, spoolPart } from './spool-part.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sidegate-spool-test-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function readAll(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString();
}

const source = (...pieces: string[]) => Readable.from(pieces.map((p) => Buffer.from(p)));

describe('spoolPart', () => {
  it('keeps a part that fits in memory off the disk', async () => {
    const part = await spoolPart(source('abc', 'def'), { memoryBytes: 10, maxBytes: 100, tmpDir: dir });
    expect({ size: part.size, text: await readAll(part.open()), files: await readdir(dir) }).toStrictEqual({
      size: 6,
      text: 'abcdef',
      files: [],
    });
    await part.cleanup();
  });

  it('moves a larger part to a temp file, readable twice, removed by cleanup', async () => {
    const part = await spoolPart(source('abcd', 'efgh', 'ijkl'), { memoryBytes: 5, maxBytes: 100, tmpDir: dir });
    expect(part.size).toBe(12);
    expect(await readAll(part.open())).toBe('abcdefghijkl');
    expect(await readAll(part.open())).toBe('abcdefghijkl');
    expect((await readdir(dir)).length).toBe(1);
    await part.cleanup();
    await part.cleanup();
    expect(await readdir(dir)).toStrictEqual([]);
  });

  it('drains a part over the cap, leaves nothing behind and rejects', async () => {
    const stream = source('abcd', 'efgh', 'ijkl', 'mnop');
    await expect(spoolPart(stream, { memoryBytes: 2, maxBytes: 10, tmpDir: dir })).rejects.toBeInstanceOf(PartTooLargeError);
    expect(stream.readableEnded).toBe(true);
    expect(await readdir(dir)).toStrictEqual([]);
  });
});
