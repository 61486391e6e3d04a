/**
 * The request context (DESIGN Decision 18): everything the gateway reads from a request's
 * headers, parsed and validated once, before routing, by the server. Routing reads it (metadata
 * for conditional routing, the config, the credentials); telemetry receives it (the ids the
 * request span must carry, metadata for attributes) and decides nothing. So with
 * `OTEL_SDK_DISABLED=true` every answer, header, route and error stays the same.
 *
 * Per request; the only state it touches is the bounded span-id registry (Decision 1), so an id
 * reused in a trace gets a fresh one whether or not telemetry is on.
 *
 * Throws `InvalidRequestError` (400) for bad `x-gateway-metadata`, oversized `baggage`, an
 * unknown `x-gateway-provider`, a bad `x-gateway-request-timeout` or a bad `x-gateway-config`,
 * and `NotFoundError` for an unknown stored config id.
 */
import { randomFillSync } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { TraceFlags, type SpanContext, type TextMapPropagator } from '@opentelemetry/api';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { canonicalHeader, usesPortkeyPrefix } from '../config/header-aliases.js';
import type { RoutingConfig, RoutingConfigStore } from '../config/routing-config.js';
import type { SpanIdRegistry } from '../telemetry/span-id-registry.js';
import type { RequestTrace } from '../telemetry/telemetry.js';
import { readCredentialHeaders, type RequestCredentials } from './read-credential-headers.js';
import { readTraceHeaders, type IncomingTrace } from './read-trace-headers.js';

export interface RequestContext {
  /** `baggage` merged with `x-gateway-metadata` (which wins); frozen. */
  metadata: Readonly<Record<string, string>>;
  trace: RequestTrace;
  /** Provider, virtual key, `Authorization`, custom host, strictness and timeout headers. */
  credentials: RequestCredentials;
  /** The routing config of `x-gateway-config` (inline or stored), already validated. */
  config?: RoutingConfig;
  /** The client spoke Portkey's header dialect: mirror response headers with `x-portkey-`. */
  portkey: boolean;
}

export interface RequestContextEnv {
  configs: RoutingConfigStore;
  /** Default per-attempt timeout (`SIDEGATE_UPSTREAM_TIMEOUT_MS`). */
  timeoutMs: number;
  spanIds: SpanIdRegistry;
  /** Reads `traceparent` / `tracestate` / `baggage`; see `createContextPropagator`. */
  propagator: TextMapPropagator;
}

/** The W3C propagators `OTEL_PROPAGATORS` names (both by default), for reading incoming context. */
export function createContextPropagator(names: ReadonlyArray<'tracecontext' | 'baggage'> = ['tracecontext', 'baggage']): TextMapPropagator {
  const propagators: TextMapPropagator[] = [];
  if (names.includes('tracecontext')) propagators.push(new W3CTraceContextPropagator());
  if (names.includes('baggage')) propagators.push(new W3CBaggagePropagator());
  return new CompositePropagator({ propagators });
}

type RoutingHeaders = Pick<RequestContext, 'credentials' | 'config'>;

/**
 * The routing part alone (credentials and config), also for routes that call upstream without a
 * span (model list). Synchronous unless `x-gateway-config` is present (a stored config may be read
 * from disk), so most requests pay no promise turn for it; a bad header throws either way.
 */
export function readRoutingHeaders(
  headers: IncomingHttpHeaders,
  env: Pick<RequestContextEnv, 'configs' | 'timeoutMs'>,
): RoutingHeaders | Promise<RoutingHeaders> {
  const credentials = readCredentialHeaders(headers, env.timeoutMs);
  const configHeader = canonicalHeader(headers, 'x-gateway-config');
  if (configHeader === undefined) return { credentials };
  return env.configs.resolve(configHeader).then((config) => ({ credentials, config }));
}

/**
 * Parses a request's headers into its context (after the front door has parsed its body);
 * synchronous when `readRoutingHeaders` is.
 */
export function readRequestContext(headers: IncomingHttpHeaders, env: RequestContextEnv): RequestContext | Promise<RequestContext> {
  const incoming = readTraceHeaders(headers, env.propagator);
  const routing = readRoutingHeaders(headers, env);
  return routing instanceof Promise ? routing.then((r) => contextOf(headers, env, incoming, r)) : contextOf(headers, env, incoming, routing);
}

function contextOf(headers: IncomingHttpHeaders, env: RequestContextEnv, incoming: IncomingTrace, routing: RoutingHeaders): RequestContext {
  const traceId = incoming.traceId ?? newId(16);
  const trace: RequestTrace = { traceId, spanId: '', traceFlags: incoming.parent?.traceFlags ?? TraceFlags.SAMPLED };
  if (incoming.requestedSpanId !== undefined && env.spanIds.claim(traceId, incoming.requestedSpanId)) {
    trace.spanId = incoming.requestedSpanId;
  } else {
    if (incoming.requestedSpanId !== undefined) trace.reusedSpanId = incoming.requestedSpanId;
    trace.spanId = newId(8);
  }
  if (incoming.parent !== undefined) trace.parent = incoming.parent;
  if (incoming.clientTraceId !== undefined) trace.clientTraceId = incoming.clientTraceId;
  if (incoming.clientSpanId !== undefined) trace.clientSpanId = incoming.clientSpanId;
  if (incoming.spanName !== undefined) trace.spanName = incoming.spanName;

  const context: RequestContext = { metadata: Object.freeze(incoming.metadata), trace, credentials: routing.credentials, portkey: usesPortkeyPrefix(headers) };
  if (routing.config !== undefined) context.config = routing.config;
  return context;
}

/**
 * Random bytes for ids, drawn from the CSPRNG 4 KiB at a time: a `randomBytes` call per id
 * costs a few microseconds (a synchronous crypto job each), two per request, while slicing a
 * refilled pool costs a fraction of one (the same trade `crypto.randomUUID` makes internally).
 */
const idPool = Buffer.allocUnsafe(4096);
let idPoolOffset = idPool.length;
const ALL_ZEROS = /^0+$/;

/** A random non-zero id of `bytes` bytes as lower-case hex (W3C: all zeros is invalid). */
function newId(bytes: number): string {
  for (;;) {
    if (idPoolOffset + bytes > idPool.length) {
      randomFillSync(idPool);
      idPoolOffset = 0;
    }
    const id = idPool.toString('hex', idPoolOffset, idPoolOffset + bytes);
    idPoolOffset += bytes;
    if (!ALL_ZEROS.test(id)) return id;
  }
}
