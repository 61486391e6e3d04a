import { describe, expect, it } from 'vitest';
import {
  ConflictError,
  InvalidRequestError,
  MethodNotAllowedError,
  NotFoundError,
  PayloadTooLargeError,
  toErrorResponse,
  type GatewayError,
} from './errors.js';
import { fileTooLarge } from './files/parse-upload-form.js';
import { bodyTooLarge } from './server/read-body.js';

// Issue 16: 405, 409 and 413 were InvalidRequestError with a status option; one type per status now.
describe('one error type per status', () => {
  it.each([
    { name: '400', error: new InvalidRequestError('bad', { param: 'model' }), type: InvalidRequestError, status: 400, envelope: 'invalid_request_error' },
    { name: '404', error: new NotFoundError('no such route'), type: NotFoundError, status: 404, envelope: 'not_found_error' },
    { name: '404 unknown model (OpenAI’s type)', error: new NotFoundError('no model', { type: 'invalid_request_error' }), type: NotFoundError, status: 404, envelope: 'invalid_request_error' },
    { name: '405', error: new MethodNotAllowedError('no'), type: MethodNotAllowedError, status: 405, envelope: 'invalid_request_error' },
    { name: '409', error: new ConflictError('exists', { param: 'slug' }), type: ConflictError, status: 409, envelope: 'invalid_request_error' },
    { name: '413 body', error: bodyTooLarge(10), type: PayloadTooLargeError, status: 413, envelope: 'invalid_request_error' },
    { name: '413 file', error: fileTooLarge(10), type: PayloadTooLargeError, status: 413, envelope: 'invalid_request_error' },
  ])('$name', ({ error, type, status, envelope }) => {
    expect(error).toBeInstanceOf(type);
    expect(error.status).toBe(status);
    if (status !== 400) expect(error).not.toBeInstanceOf(InvalidRequestError);
    const { status: answered, body } = toErrorResponse(error as GatewayError);
    expect([answered, body.error.type]).toStrictEqual([status, envelope]);
  });
});
