/**
 * The POST of one upstream attempt, shared by every provider: the JSON body with large inline
 * media spliced back in from the client's own body (never re-encoded; inline-blobs.ts), the
 * attempt's abort signal, and undici's failures mapped to our errors. Resolves once response
 * headers arrived, which also stops the attempt's header timeout.
 */
import { Readable } from 'node:stream';
import { serializedLength, serializeJsonBody } from '../openai/inline-blobs.js';
import type { AttemptControl } from './attempt-control.js';
import type { Dispatcher, request } from './http-client.js';

export async function postJson(
  send: typeof request,
  url: string,
  body: unknown,
  headers: Record<string, string>,
  control: AttemptControl,
  dispatcher: Dispatcher,
): Promise<Dispatcher.ResponseData> {
  const payload = serializeJsonBody(body);
  let res: Dispatcher.ResponseData;
  try {
    res = await send(url, {
      method: 'POST',
      headers: {
        ...headers,
        'content-type': 'application/json',
        ...(typeof payload === 'string' ? {} : { 'content-length': String(serializedLength(payload)) }),
      },
      body: typeof payload === 'string' ? payload : Readable.from(payload),
      signal: control.signal,
      dispatcher,
    });
  } catch (err) {
    control.dispose();
    throw control.toError(err, 'connect');
  }
  control.headersArrived();
  return res;
}
