/**
 * Reads a request body with a hard size cap. A declared `content-length` over the cap is refused
 * before reading a byte; a body that grows past it while streaming is refused as soon as it does.
 */
import type { IncomingMessage } from 'node:http';
import { ClientAbortError, InvalidRequestError, PayloadTooLargeError } from '../errors.js';
import { parseJsonBody, type ParsedBody } from '../openai/inline-blobs.js';
import { admitBodyChunk } from '../overload/inflight-budget.js';
import { findTooDeep, MAX_JSON_DEPTH } from '../openai/json-depth.js';
import { formatParam } from '../openai/parse-chat-request.js';

export function bodyTooLarge(maxBytes: number): PayloadTooLargeError {
  return new PayloadTooLargeError(`request body exceeds the limit of ${maxBytes} bytes (SIDEGATE_MAX_BODY_BYTES)`, {
    code: 'request_too_large',
  });
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
      try {
        admitBodyChunk(req, chunk.length); // a chunked body counts in the in-flight budget as it arrives
      } catch (err) {
        cleanup();
        req.resume();
        reject(err);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(chunks);
    };
    // A client that goes away mid-body (Node's 'aborted' error, or a close before the end) is a
    // client abort like any other: nobody is left to answer, and it is not the gateway's error.
    const onError = () => {
      cleanup();
      reject(new ClientAbortError());
    };
    const onClose = () => {
      cleanup();
      if (!req.complete) reject(new ClientAbortError());
      else resolve(chunks);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

/** The whole body in one buffer (small bodies: admin and other JSON routes). */
export async function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const chunks = await readBodyChunks(req, maxBytes);
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}

export async function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  const value: unknown = parseJson(await readBody(req, maxBytes), (raw) => JSON.parse(raw.toString('utf8')));
  checkDepth(value);
  return value;
}

/**
 * Like `readJsonBody`, but large base64 data-URI payloads stay in the body's chunks and are carried
 * by reference (inline-blobs.ts). The caller must `release()` once the request is finished.
 */
export function readJsonBodyWithBlobs(req: IncomingMessage, maxBytes: number): Promise<ParsedBody> {
  // A handler on the read's promise rather than an async function around it: every chat request
  // passes here, and each async layer is another promise and turn.
  return readBodyChunks(req, maxBytes).then((chunks) => {
    const body = parseJson(chunks, parseJsonBody);
    try {
      checkDepth(body.value);
    } catch (err) {
      body.release();
      throw err;
    }
    return body;
  });
}

function parseJson<B extends { length: number }, T>(raw: B, parse: (raw: B) => T): T {
  if (raw.length === 0) throw new InvalidRequestError('request body is empty; expected a JSON object', { code: 'invalid_json' });
  try {
    return parse(raw);
  } catch (err) {
    throw new InvalidRequestError(`request body is not valid JSON: ${(err as Error).message}`, { code: 'invalid_json' });
  }
}

/**
 * JSON.parse itself is iterative; what comes after it (schema conversion, JSON.stringify of the
 * upstream body) is not: bound the nesting of every body once, here.
 */
function checkDepth(value: unknown): void {
  const deep = findTooDeep(value, MAX_JSON_DEPTH);
  if (deep === undefined) return;
  const param = formatParam(deep.slice(0, 8));
  throw new InvalidRequestError(`${param}: a JSON value nested deeper than ${MAX_JSON_DEPTH} levels`, { param, code: 'nesting_too_deep' });
}
