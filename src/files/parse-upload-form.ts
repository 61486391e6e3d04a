/**
 * Reads a `POST /v1/files` body (multipart/form-data with `file` and `purpose`, as OpenAI's files
 * API takes it) with busboy, streaming the file part into `spoolPart`. The MIME type is checked
 * from the part's headers before a byte is stored; every failure is a 400 `InvalidRequestError` or a 413 `PayloadTooLargeError`
 * naming the part, raised only after the body has been read to its end so the client gets the
 * answer instead of a reset connection.
 */
import type { IncomingMessage } from 'node:http';
import busboy from 'busboy';
import { GatewayError, InvalidRequestError, PayloadTooLargeError } from '../errors.js';
import { mimeTypeFromFilename, normalizeMediaMimeType } from '../media/mime-types.js';
import { PartTooLargeError, spoolPart, type SpooledPart } from './spool-part.js';

export interface UploadForm {
  fields: Record<string, string>;
  file: { filename: string; mimeType: string; part: SpooledPart };
}

export interface ParseUploadOptions {
  maxFileBytes: number;
  memoryBytes: number;
  tmpDir?: string;
}

export function fileTooLarge(maxBytes: number): PayloadTooLargeError {
  return new PayloadTooLargeError(`file exceeds the limit of ${maxBytes} bytes (SIDEGATE_MAX_FILE_BYTES)`, {
    param: 'file',
    code: 'file_too_large',
  });
}

/**
 * The MIME type a part goes upstream with. busboy reports `text/plain` for a part without a
 * Content-Type and many clients send `application/octet-stream`; for those the file name's
 * extension decides. Text and HTML go as `text/plain` (DESIGN Decision 11).
 */
export function uploadMimeType(partType: string, filename: string): string | undefined {
  const declared = partType.trim().toLowerCase();
  if (declared === '' || declared === 'application/octet-stream' || declared.startsWith('text/plain')) {
    const fromName = mimeTypeFromFilename(filename);
    if (fromName !== undefined) return normalizeMediaMimeType(fromName);
  }
  return normalizeMediaMimeType(declared);
}

export async function parseUploadForm(req: IncomingMessage, options: ParseUploadOptions): Promise<UploadForm> {
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: req.headers,
      defParamCharset: 'utf8',
      limits: { files: 1, fields: 16, fieldSize: 4096, parts: 32, headerPairs: 64 },
    });
  } catch {
    throw new InvalidRequestError('expected a multipart/form-data body with the parts "file" and "purpose"', {
      code: 'invalid_content_type',
    });
  }

  const fields: Record<string, string> = {};
  let problem: GatewayError | undefined;
  let file: { filename: string; mimeType: string; spooled: Promise<SpooledPart> } | undefined;
  const fail = (err: GatewayError) => {
    problem ??= err;
  };

  parser.on('file', (name, stream, info) => {
    if (name !== 'file' || problem !== undefined) {
      if (name !== 'file') fail(new InvalidRequestError(`unexpected file part "${name.slice(0, 64)}"; send the file in the part "file"`, { param: name.slice(0, 64), code: 'invalid_file' }));
      stream.resume();
      return;
    }
    const filename = info.filename ?? 'file';
    const mimeType = uploadMimeType(info.mimeType, filename);
    if (mimeType === undefined) {
      fail(
        new InvalidRequestError(
          `file: type ${JSON.stringify(info.mimeType.slice(0, 100))} (${JSON.stringify(filename.slice(0, 100))}) is not supported; Gemini accepts images (png, jpeg, webp, heic, heif), audio, video, PDF and text`,
          { param: 'file', code: 'unsupported_file_type' },
        ),
      );
      stream.resume();
      return;
    }
    const spooled = spoolPart(stream, {
      maxBytes: options.maxFileBytes,
      memoryBytes: options.memoryBytes,
      ...(options.tmpDir !== undefined ? { tmpDir: options.tmpDir } : {}),
    });
    spooled.catch(() => undefined); // awaited below; this keeps an early rejection from being unhandled
    file = { filename, mimeType, spooled };
  });
  parser.on('field', (name, value, info) => {
    if (info.valueTruncated) fail(new InvalidRequestError(`part "${name.slice(0, 64)}" is too long`, { param: name.slice(0, 64) }));
    else fields[name] = value;
  });
  parser.on('filesLimit', () => fail(new InvalidRequestError('send exactly one file per request', { param: 'file', code: 'invalid_file' })));
  parser.on('fieldsLimit', () => fail(new InvalidRequestError('too many form fields', { code: 'invalid_form' })));
  parser.on('partsLimit', () => fail(new InvalidRequestError('too many form parts', { code: 'invalid_form' })));

  await new Promise<void>((resolve, reject) => {
    parser.on('close', resolve);
    parser.on('error', (err: Error) =>
      reject(new InvalidRequestError(`malformed multipart/form-data body: ${err.message}`, { code: 'invalid_form' })),
    );
    req.on('error', () => reject(new InvalidRequestError('the request body ended early', { code: 'invalid_form' })));
    req.pipe(parser);
  }).catch(async (err: unknown) => {
    req.unpipe(parser);
    if (file) await file.spooled.then((p) => p.cleanup(), () => undefined);
    throw err;
  });

  let part: SpooledPart | undefined;
  if (file) {
    try {
      part = await file.spooled;
    } catch (err) {
      if (err instanceof PartTooLargeError) fail(fileTooLarge(err.maxBytes));
      else throw err;
    }
  }
  if (problem === undefined && part === undefined) {
    fail(new InvalidRequestError('missing the part "file"', { param: 'file', code: 'missing_file' }));
  }
  if (problem !== undefined) {
    await part?.cleanup();
    throw problem;
  }
  return { fields, file: { filename: file!.filename, mimeType: file!.mimeType, part: part! } };
}
