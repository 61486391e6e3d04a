/**
 * Reads a request body with a hard size cap. A declared `content-length` over the cap is refused
 * before reading a byte; a body that grows past it while streaming is refused as soon as it does.
 */
import type { IncomingMessage } from 'node:http';
import { InvalidRequestError } from '../errors.js';
import { parseJsonBody, type ParsedBody } from '../openai/inline-blobs.js';

export function bodyTooLarge(maxBytes: number): InvalidRequestError {
  return new InvalidRequestError(`request body exceeds the limit of ${maxBytes} bytes (SIDEGATE_MAX_BODY_BYTES)`, {
    status: 413,
    code: 'request_too_large',
  });
}

export async function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) throw bodyTooLarge(maxBytes);
  // With a declared length, copy into one buffer as chunks arrive, so a 20 MB image is held once
  // rather than as a list of chunks plus their concatenation.
  if (Number.isFinite(declared) && declared > 0) {
    const body = Buffer.allocUnsafe(declared);
    let size = 0;
    for await (const chunk of req as AsyncIterable<Buffer>) {
      if (size + chunk.length > declared) throw new InvalidRequestError('request body is longer than its content-length', { code: 'invalid_body' });
      chunk.copy(body, size);
      size += chunk.length;
    }
    return size === declared ? body : body.subarray(0, size);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw bodyTooLarge(maxBytes);
    chunks.push(chunk);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
}

/**
 * The body as the chunks it arrived in, without joining them: a 20 MB image is then held once
 * (joining would leave the chunks behind as a second copy until the next garbage collection).
 */
export function readBodyChunks(req: IncomingMessage, maxBytes: number): Promise<Buffer[]> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) return Promise.reject(bodyTooLarge(maxBytes));
  // Plain listeners rather than `for await`: this runs on every request, and the async iterator
  // of a Readable costs several promise hops per chunk.
  return new Promise<Buffer[]>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        cleanup();
        req.resume(); // drain what is left so the 413 can be written
        reject(bodyTooLarge(maxBytes));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(chunks);
    };
    const onError = (err: Error) => {
      cleanup();
      reject(err);
    };
    const onClose = () => {
      cleanup();
      if (!req.complete) reject(new InvalidRequestError('the client closed the connection before sending the whole body', { code: 'incomplete_body' }));
      else resolve(chunks);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

export async function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  const raw = await readBody(req, maxBytes);
  if (raw.length === 0) throw new InvalidRequestError('request body is empty; expected a JSON object', { code: 'invalid_json' });
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch (err) {
    throw new InvalidRequestError(`request body is not valid JSON: ${(err as Error).message}`, { code: 'invalid_json' });
  }
}

/**
 * Like `readJsonBody`, but large base64 data-URI payloads stay in the body buffer and are carried
 * by reference (inline-blobs.ts). The caller must `release()` once the request is finished.
 */
export async function readJsonBodyWithBlobs(req: IncomingMessage, maxBytes: number): Promise<ParsedBody> {
  const raw = await readBodyChunks(req, maxBytes);
  if (raw.length === 0) throw new InvalidRequestError('request body is empty; expected a JSON object', { code: 'invalid_json' });
  try {
    return parseJsonBody(raw);
  } catch (err) {
    throw new InvalidRequestError(`request body is not valid JSON: ${(err as Error).message}`, { code: 'invalid_json' });
  }
}
