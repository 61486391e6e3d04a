/**
 * Spools one multipart file part so its exact size is known before the upload starts.
 *
 * Why spool at all: Gemini's resumable upload declares the total size in its start request
 * (`X-Goog-Upload-Header-Content-Length`, gemini-wire §13.1), and a multipart part carries no
 * size of its own (the request's Content-Length includes boundaries and other fields, so it is
 * not reliable either). So the part is read first: the first `memoryBytes` stay in memory, and a
 * larger part moves to a temp file on disk, written with backpressure. Small files (most images)
 * never touch the disk; a 2 GB video costs disk, never memory. The cap is enforced while reading.
 */
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { once } from 'node:events';

export interface SpooledPart {
  size: number;
  /** A fresh stream of the part's bytes. */
  open(): Readable;
  /** Removes the temp file, if any. Safe to call twice. */
  cleanup(): Promise<void>;
}

export interface SpoolOptions {
  /** Bytes kept in memory before moving to disk. */
  memoryBytes: number;
  /** Largest part accepted; a larger one rejects with `PartTooLargeError` after draining. */
  maxBytes: number;
  /** Where temp files go (default the OS temp dir). */
  tmpDir?: string;
}

export class PartTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`part exceeds ${maxBytes} bytes`);
  }
}

/**
 * Reads `stream` to its end. Over the cap, the rest is drained (so the multipart parser can
 * finish and the client gets an answer) and the promise rejects with `PartTooLargeError`.
 */
export async function spoolPart(stream: AsyncIterable<Buffer>, options: SpoolOptions): Promise<SpooledPart> {
  const memory: Buffer[] = [];
  let size = 0;
  let tooLarge = false;
  let dir: string | undefined;
  let file: WriteStream | undefined;

  const cleanup = async () => {
    const d = dir;
    dir = undefined;
    if (d !== undefined) await rm(d, { recursive: true, force: true });
  };

  try {
    for await (const chunk of stream) {
      if (tooLarge) continue;
      size += chunk.length;
      if (size > options.maxBytes) {
        tooLarge = true;
        memory.length = 0;
        continue;
      }
      if (file === undefined && size <= options.memoryBytes) {
        memory.push(chunk);
        continue;
      }
      if (file === undefined) {
        dir = await mkdtemp(join(options.tmpDir ?? tmpdir(), 'sidegate-upload-'));
        file = createWriteStream(join(dir, 'part'));
        // Errors reach us through write callbacks and `once(file, 'finish')`; this keeps the
        // 'error' event from being unhandled.
        file.on('error', () => undefined);
        for (const held of memory.splice(0)) await write(file, held);
      }
      await write(file, chunk);
    }
    if (file !== undefined) {
      file.end();
      await once(file, 'finish');
    }
  } catch (err) {
    file?.destroy();
    await cleanup();
    throw err;
  }
  if (tooLarge) {
    file?.destroy();
    await cleanup();
    throw new PartTooLargeError(options.maxBytes);
  }

  const path = dir === undefined ? undefined : join(dir, 'part');
  const whole = path === undefined ? Buffer.concat(memory, size) : undefined;
  return {
    size,
    open: () => (path !== undefined ? createReadStream(path, { highWaterMark: 1024 * 1024 }) : Readable.from([whole!])),
    cleanup,
  };
}

/** Writes one chunk and waits until it is flushed: one chunk in flight is all the backpressure needed. */
function write(file: WriteStream, chunk: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    file.write(chunk, (err) => (err ? reject(err) : resolve()));
  });
}
