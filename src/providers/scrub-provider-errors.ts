/**
 * Every error a provider call ends with passes the one scrubber (`scrub-secrets.ts`) with the
 * attempt's provider key before routing sees it: whatever path upstream text took to become an
 * error (an error status, an error object inside a 200, an SSE error event, an error array on a
 * stream, a broken stream), the key cannot reach the client's answer, the attempt span's status or
 * a log line. Wraps a provider; the stream is relayed by a delegating iterator that forwards
 * `return()` (a client that went away) to the provider's own, which aborts the upstream call.
 */
import { scrubErrorMessage } from '../scrub-secrets.js';
import type { ChatCompletionChunk } from '../openai/chat-response.js';
import type { Provider, ProviderCall } from './provider.js';

export function scrubProviderErrors<P extends Provider>(provider: P): P {
  const wrapped: P = Object.assign({}, provider, {
    // A rejection handler rather than an async wrapper: one promise less on every call.
    chat: (call: ProviderCall) =>
      provider.chat(call).catch((err: unknown) => {
        throw scrubErrorMessage(err, [call.target.apiKey]);
      }),
    async chatStream(call: ProviderCall) {
      const known = [call.target.apiKey];
      let result;
      try {
        result = await provider.chatStream(call);
      } catch (err) {
        throw scrubErrorMessage(err, known);
      }
      return Object.assign({}, result, { chunks: scrubbedChunks(result.chunks, known) });
    },
  });
  if (provider.embed) {
    const embed = provider.embed.bind(provider);
    wrapped.embed = async (call) => {
      try {
        return await embed(call);
      } catch (err) {
        throw scrubErrorMessage(err, [call.target.apiKey]);
      }
    };
  }
  if (provider.listModels) {
    const listModels = provider.listModels.bind(provider);
    wrapped.listModels = async (target, signal) => {
      try {
        return await listModels(target, signal);
      } catch (err) {
        throw scrubErrorMessage(err, [target.apiKey]);
      }
    };
  }
  return wrapped;
}

/**
 * The chunks as they are, with a mid-stream failure scrubbed. A delegating iterator rather than an
 * async generator: every streamed chunk passes here, and `yield*` would add promise turns per chunk.
 * `return()` is forwarded, so a consumer that stops early still aborts the upstream call.
 */
function scrubbedChunks(chunks: AsyncIterable<ChatCompletionChunk>, known: string[]): AsyncIterable<ChatCompletionChunk> {
  const scrub = (err: unknown): never => {
    throw scrubErrorMessage(err, known);
  };
  return {
    [Symbol.asyncIterator]() {
      const inner = chunks[Symbol.asyncIterator]();
      return {
        next: () => inner.next().catch(scrub),
        return: (value?: unknown) => (inner.return ? inner.return(value).catch(scrub) : Promise.resolve({ done: true as const, value: undefined })),
      };
    },
  };
}
