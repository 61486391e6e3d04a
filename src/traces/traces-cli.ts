/**
 * `sidegate trace <traceId> [--json]` and `sidegate traces [--since 1h] [--limit 50] [--json]`:
 * read the trace backend directly (`SIDEGATE_TRACES_URL` or `--traces-url`), through the same reader
 * and summariser as `GET /v1/traces`, so `--json` prints exactly the API's answer. Exit codes: 0,
 * 1 (unknown trace, backend unset or unreachable), 2 (usage).
 */
import { GatewayError } from '../errors.js';
import { formatTrace, formatTraceList } from './format-trace.js';
import { createJaegerReader } from './jaeger-reader.js';
import { parseSince } from './parse-since.js';
import { readRecentTraces, readTraceSummary } from './read-summaries.js';
import type { TraceReader } from './trace-reader.js';

export interface TracesCliIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  env: NodeJS.ProcessEnv;
  /** Tests pass a reader; otherwise Jaeger at the URL. */
  reader?: TraceReader;
}

const TRACE_USAGE = 'usage: sidegate trace <traceId> [--json] [--traces-url URL]\n';
const TRACES_USAGE = 'usage: sidegate traces [--since 1h] [--limit 50] [--service NAME] [--json] [--traces-url URL]\n';

export async function runTraceCli(argv: readonly string[], io: TracesCliIo): Promise<number> {
  const args = parseArgs(argv, ['--traces-url'], ['--json']);
  if (args === null || args.positional.length !== 1) return usage(io, TRACE_USAGE);
  return run(io, args.flags, async (reader) => {
    const summary = await readTraceSummary(reader, args.positional[0]!);
    io.stdout.write(args.flags.has('--json') ? `${JSON.stringify(summary, null, 2)}\n` : formatTrace(summary));
  });
}

export async function runTracesCli(argv: readonly string[], io: TracesCliIo): Promise<number> {
  const args = parseArgs(argv, ['--traces-url', '--since', '--limit', '--service'], ['--json']);
  if (args === null || args.positional.length !== 0) return usage(io, TRACES_USAGE);
  const sinceMs = parseSince(args.flags.get('--since') ?? '1h');
  const limit = Number(args.flags.get('--limit') ?? '50');
  if (sinceMs === null || !Number.isInteger(limit) || limit < 1 || limit > 1000) return usage(io, TRACES_USAGE);
  const service = args.flags.get('--service') ?? (io.env.OTEL_SERVICE_NAME?.trim() || 'sidegate');
  return run(io, args.flags, async (reader) => {
    const list = await readRecentTraces(reader, { service, sinceMs, limit, now: new Date() });
    io.stdout.write(args.flags.has('--json') ? `${JSON.stringify(list, null, 2)}\n` : formatTraceList(list));
  });
}

async function run(io: TracesCliIo, flags: Map<string, string>, body: (reader: TraceReader | undefined) => Promise<void>): Promise<number> {
  const url = flags.get('--traces-url') ?? (io.env.SIDEGATE_TRACES_URL?.trim() || undefined);
  const reader = io.reader ?? (url !== undefined ? createJaegerReader({ url }) : undefined);
  try {
    await body(reader);
    return 0;
  } catch (err) {
    if (!(err instanceof GatewayError)) throw err;
    io.stderr.write(`sidegate: ${err.message}\n`);
    return 1;
  }
}

function usage(io: TracesCliIo, text: string): number {
  io.stderr.write(text);
  return 2;
}

function parseArgs(argv: readonly string[], valued: string[], switches: string[]): { positional: string[]; flags: Map<string, string> } | null {
  const positional: string[] = [];
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg : arg.slice(0, eq);
    if (switches.includes(name) && eq === -1) flags.set(name, 'true');
    else if (valued.includes(name)) {
      const value = eq === -1 ? argv[++i] : arg.slice(eq + 1);
      if (value === undefined) return null;
      flags.set(name, value);
    } else return null;
  }
  return { positional, flags };
}
