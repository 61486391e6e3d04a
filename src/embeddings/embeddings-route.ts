/**
 * `POST /v1/embeddings`: read and validate the body, read the request context, then the shared
 * operation path (DESIGN Decision 17): the same plan, routing configs, retries, fallbacks and
 * attempt spans as chat. The request span is `embeddings {model}`; each attempt span is
 * `embeddings {target model}` with the usage of that call. Knows nothing of Gemini.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Settings } from '../config/settings.js';
import { ClientAbortError, InvalidRequestError } from '../errors.js';
import { parseEmbeddingsRequest } from './parse-embeddings-request.js';
import type { EmbedResult } from '../providers/provider.js';
import { routeAttempts } from '../routing/route-request.js';
import { openOperation, type OperationDeps } from '../server/open-operation.js';
import { readJsonBody } from '../server/read-body.js';
import { readRequestContext, type RequestContextEnv } from '../server/request-context.js';
import { sendJson } from '../server/respond.js';

export interface EmbeddingsRouteDeps extends OperationDeps {
  settings: Settings;
  contextEnv: RequestContextEnv;
}

/** `gen_ai.operation.name` for embeddings (OTel GenAI semantic conventions). */
const OPERATION = 'embeddings';

export function createEmbeddingsRoute(deps: EmbeddingsRouteDeps) {
  return async function embeddings(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const request = parseEmbeddingsRequest(await readJsonBody(req, deps.settings.maxBodyBytes));
    const context = await readRequestContext(req.headers, deps.contextEnv);
    const op = openOperation(deps, res, {
      context,
      operation: OPERATION,
      model: request.model,
      route: '/v1/embeddings',
      params: request as unknown as Record<string, unknown>,
    });
    try {
      const result = await routeAttempts<EmbedResult>(Object.assign({}, op.attempts, { operationName: OPERATION }), op.stats, async (provider, call, attempt) => {
        if (!provider.embed) {
          throw new InvalidRequestError(`provider ${provider.name} does not offer embeddings in this gateway`, { code: 'unsupported_provider' });
        }
        const answer = await provider.embed(Object.assign({}, call, { request }));
        attempt.end({ status: answer.status, outcome: answer.outcome });
        return answer;
      });
      if (op.signal.aborted) throw new ClientAbortError();
      sendJson(res, result.status, result.response, op.responseHeaders());
      op.succeed(result.status, result.outcome);
    } catch (err) {
      op.fail(err);
    }
  };
}
