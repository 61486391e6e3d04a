/**
 * The OTLP/HTTP transport of every exporter sidegate builds (spans and metrics, protobuf and JSON):
 * the POST of a serialised batch, through undici.
 *
 * Why: the SDK's HTTP transport sends with `node:http`, whose client code a gateway otherwise never
 * runs. Each export POST ran it cold: about 500 µs of CPU per POST at 1,000 requests/s, 15 µs per
 * request for the span batches (docs/performance.md, "Issue 25, tenth round"). And the first
 * `node:http` client request in a process deoptimises some forty of Node's functions that the
 * server runs on every request (`_storeHeader`, `write_`, `parserOnHeadersComplete`, the streams':
 * a `ClientRequest` where only `ServerResponse`s had been), which then run unoptimised and are
 * compiled again, 120–320 ms of CPU under load at the first metric export, a minute after start
 * (issue 25, eighteenth round). undici is the client every upstream call already keeps hot.
 * Everything else is the SDK's: the export delegate, its queue and concurrency limit, its retries
 * and backoff (`RetryingTransport` wraps this), its exporter metrics. This transport answers
 * exactly as the SDK's `sendWithHttp` does (success on 2xx; retryable on 429/502/503/504 with
 * `Retry-After`, on a timeout and on the network errors it names; failure otherwise, with the
 * collector's message), so the delegate behaves the same, and it sends the same headers (the
 * configured ones, the SDK's `User-Agent`, `Content-Encoding: gzip` when compressing).
 */
// node:http's reason phrases: the SDK's error message is the response's `statusMessage`.
import { STATUS_CODES } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { ExportResponse, IExporterTransport, IOtlpExportDelegate, OTLPExporterNodeConfigBase } from '@opentelemetry/otlp-exporter-base';
import { createOtlpNetworkExportDelegate, OTLPExporterError } from '@opentelemetry/otlp-exporter-base';
import type * as NodeHttp from '@opentelemetry/otlp-exporter-base/node-http';
import type { IExporterMetricsHelper, ISerializer } from '@opentelemetry/otlp-transformer';
import { Agent, request, type Dispatcher } from '../http-client.js';

// Not among @opentelemetry/otlp-exporter-base's exports: its retrying transport, its rules for a
// retryable status and `Retry-After`, its version and its answer size limit, loaded by file from
// the pinned version (a moved file fails this module's tests). Upstream,
// https://github.com/open-telemetry/opentelemetry-js/pull/6377 would export `createRetryingTransport`.
const requireSdk = createRequire(import.meta.url);
const exporterBase = dirname(requireSdk.resolve('@opentelemetry/otlp-exporter-base'));
const { createRetryingTransport } = requireSdk(join(exporterBase, 'retrying-transport.js')) as {
  createRetryingTransport: (options: { transport: IExporterTransport }) => IExporterTransport;
};
const { isExportHTTPErrorRetryable, parseRetryAfterToMills } = requireSdk(join(exporterBase, 'is-export-retryable.js')) as {
  isExportHTTPErrorRetryable: (statusCode: number) => boolean;
  parseRetryAfterToMills: (retryAfter?: string | null) => number | undefined;
};
const { VERSION } = requireSdk(join(exporterBase, 'version.js')) as { VERSION: string };
/** The SDK's limit on a collector's answer (already loaded with the SDK's node:http transport). */
const { MAX_RESPONSE_BODY_SIZE } = requireSdk(join(exporterBase, 'transport/http-transport-utils.js')) as { MAX_RESPONSE_BODY_SIZE: number };
/** The SDK transport's own `User-Agent` (http-transport-utils.js DEFAULT_USER_AGENT). */
const SDK_USER_AGENT = `OTel-OTLP-Exporter-JavaScript/${VERSION}`;

const gzipAsync = promisify(gzip);

/**
 * Network errors the SDK retries (http-transport-utils.js, not exported there), and undici's names
 * for a dropped socket or a timeout.
 */
const RETRYABLE_ERRORS = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'ENOTFOUND',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

export interface UndiciExportTransportOptions {
  url: string;
  /** The configured headers (`OTEL_EXPORTER_OTLP_*HEADERS`), the content type among them. */
  headers: () => Promise<Record<string, string>>;
  compression: 'gzip' | 'none';
  /** A configured `User-Agent`, sent before the SDK's own, as the SDK's transport sends it. */
  userAgent?: string | undefined;
}

/** What an SDK OTLP/HTTP exporter's package fixes for its signal and encoding. */
export interface OtlpHttpExporterKind<Internal, Response> {
  signal: 'traces' | 'metrics';
  contentType: string;
  serializer: ISerializer<Internal, Response>;
  /** For the SDK's exporter metrics: the package's component type (its `semconv.ts`) and item counter. */
  componentType: string;
  metricsHelper: IExporterMetricsHelper<Internal>;
}

/**
 * The export delegate an SDK OTLP/HTTP exporter is built on (`createOtlpHttpExportDelegate`: the
 * options and environment as `convertLegacyHttpOptions` reads them for the signal, the same queue,
 * concurrency limit, timeout, retries and exporter metrics), with the undici transport in place of
 * node:http's.
 */
export function createUndiciExportDelegate<Internal, Response>(
  options: OTLPExporterNodeConfigBase,
  kind: OtlpHttpExporterKind<Internal, Response>,
): IOtlpExportDelegate<Internal> {
  const { convertLegacyHttpOptions, createOtlpHttpExporterMetrics } = requireSdk('@opentelemetry/otlp-exporter-base/node-http') as typeof NodeHttp;
  const config = convertLegacyHttpOptions(options, kind.signal.toUpperCase(), `v1/${kind.signal}`, { 'Content-Type': kind.contentType });
  const transport = createUndiciExportTransport({ url: config.url, headers: config.headers, compression: config.compression, userAgent: config.userAgent });
  const metrics = createOtlpHttpExporterMetrics(kind.componentType, kind.metricsHelper, config.url, undefined);
  return createOtlpNetworkExportDelegate(config, kind.serializer, metrics, transport);
}

/** The SDK's `RetryingTransport` (retries, backoff, `Retry-After`) around the undici POST. */
function createUndiciExportTransport(options: UndiciExportTransportOptions): IExporterTransport {
  return createRetryingTransport({ transport: new UndiciExportTransport(options) });
}

/**
 * The pool every exporter's POSTs go through, spans and metrics alike (they usually go to the same
 * collector), closed when the last transport shuts down. Its own pool: a collector is not an
 * upstream. Exports in flight are bounded by each delegate's concurrency limit (the batch
 * processor sends one batch at a time, the metric reader one collection), so a few kept-alive
 * sockets carry them; more would wait in undici's queue, not fail. One pool, not one per exporter:
 * the metric export a minute after start then takes a socket the span exports keep alive, where a
 * pool of its own opened the process's first new export connection under load, and the first
 * closed one, and undici's code, optimised for the connections it had, was deoptimised again
 * (issue 25, eighteenth round).
 */
const exportPool = {
  agent: undefined as Dispatcher | undefined,
  users: 0,
  acquire(): Dispatcher {
    this.users += 1;
    return (this.agent ??= new Agent({ keepAliveTimeout: 30_000, connections: 8 }));
  },
  release(): void {
    this.users -= 1;
    if (this.users > 0 || this.agent === undefined) return;
    void this.agent.close();
    this.agent = undefined;
  },
};

export class UndiciExportTransport implements IExporterTransport {
  readonly #agent = exportPool.acquire();
  #shut = false;

  readonly #userAgent: string;

  constructor(private readonly options: UndiciExportTransportOptions) {
    this.#userAgent = options.userAgent ? `${options.userAgent} ${SDK_USER_AGENT}` : SDK_USER_AGENT;
  }

  async send(data: Uint8Array, timeoutMillis: number): Promise<ExportResponse> {
    const headers: Record<string, string> = {};
    // node:http sets headers case-insensitively, so the SDK's User-Agent replaces a configured one.
    for (const [name, value] of Object.entries(await this.options.headers())) if (name.toLowerCase() !== 'user-agent') headers[name] = value;
    headers['User-Agent'] = this.#userAgent;
    let body = data;
    if (this.options.compression === 'gzip') {
      body = await gzipAsync(data);
      headers['Content-Encoding'] = 'gzip';
    }
    try {
      const res = await request(this.options.url, {
        method: 'POST',
        headers,
        body,
        dispatcher: this.#agent,
        // The SDK's `req.setTimeout`: the socket idle for this long, headers or body.
        headersTimeout: timeoutMillis,
        bodyTimeout: timeoutMillis,
      });
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > MAX_RESPONSE_BODY_SIZE) {
          res.body.destroy();
          return { status: 'failure', error: new Error(`OTLP export response body exceeded size limit of ${MAX_RESPONSE_BODY_SIZE} bytes`) };
        }
        chunks.push(chunk);
      }
      const status = res.statusCode;
      if (status <= 299) return { status: 'success', data: Buffer.concat(chunks) };
      if (isExportHTTPErrorRetryable(status)) {
        const retryAfter = res.headers['retry-after'];
        return { status: 'retryable', retryInMillis: parseRetryAfterToMills(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter) };
      }
      return { status: 'failure', error: new OTLPExporterError(STATUS_CODES[status], status, Buffer.concat(chunks).toString()) };
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (typeof code === 'string' && RETRYABLE_ERRORS.has(code)) return { status: 'retryable', error: error as Error };
      return { status: 'failure', error: error as Error };
    }
  }

  shutdown(): void {
    if (this.#shut) return;
    this.#shut = true;
    exportPool.release();
  }
}
