/**
 * sidegate's own settings: read once at startup from flags and `SIDEGATE_*` env, through one zod
 * schema. A bad value stops the start with one line naming the variable (STYLE §11); `OTEL_*`
 * variables are telemetry's and follow the OTel spec instead.
 */
import { randomBytes } from 'node:crypto';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';

const MiB = 1024 * 1024;

const booleanFromEnv = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes' || v === 'on');

const httpUrl = z
  .url({ protocol: /^https?$/ })
  .transform((u) => u.replace(/\/+$/, ''));

const commaList = z.string().transform((s) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x.length > 0),
);

/** Each field: the env variable it comes from, its flag (if any), and its schema with default. */
const fields = {
  port: { env: 'SIDEGATE_PORT', flag: '--port', schema: z.coerce.number().int().min(0).max(65535).default(8787) },
  host: { env: 'SIDEGATE_HOST', flag: '--host', schema: z.string().min(1).default('127.0.0.1') },
  geminiBaseUrl: {
    env: 'SIDEGATE_GEMINI_BASE_URL',
    flag: '--gemini-base-url',
    schema: httpUrl.default('https://generativelanguage.googleapis.com'),
  },
  openaiBaseUrl: {
    env: 'SIDEGATE_OPENAI_BASE_URL',
    flag: '--openai-base-url',
    schema: httpUrl.default('https://api.openai.com'),
  },
  /** Replaces the Vertex AI origin (`https://{region}-aiplatform.googleapis.com`) for every region: private endpoints, tests. */
  vertexBaseUrl: { env: 'SIDEGATE_VERTEX_BASE_URL', flag: '--vertex-base-url', schema: httpUrl.optional() },
  apiKeys: { env: 'SIDEGATE_API_KEYS', flag: undefined, schema: commaList.default([]) },
  maxBodyBytes: {
    env: 'SIDEGATE_MAX_BODY_BYTES',
    flag: '--max-body-bytes',
    schema: z.coerce.number().int().positive().default(100 * MiB),
  },
  maxFileBytes: {
    env: 'SIDEGATE_MAX_FILE_BYTES',
    flag: undefined,
    schema: z.coerce.number().int().positive().default(2 * 1024 * MiB),
  },
  maxUpstreamEventBytes: {
    env: 'SIDEGATE_MAX_UPSTREAM_EVENT_BYTES',
    flag: undefined,
    schema: z.coerce.number().int().positive().default(32 * MiB),
  },
  upstreamTimeoutMs: {
    env: 'SIDEGATE_UPSTREAM_TIMEOUT_MS',
    flag: '--upstream-timeout-ms',
    schema: z.coerce.number().int().positive().default(600_000),
  },
  adminKey: { env: 'SIDEGATE_ADMIN_KEY', flag: undefined, schema: z.string().min(16).optional() },
  dataDir: {
    env: 'SIDEGATE_DATA_DIR',
    flag: '--data-dir',
    schema: z.string().min(1).default(join(homedir(), '.sidegate')),
  },
  masterKey: { env: 'SIDEGATE_MASTER_KEY', flag: undefined, schema: z.string().min(1).optional() },
  virtualKeysFile: { env: 'SIDEGATE_VIRTUAL_KEYS_FILE', flag: undefined, schema: z.string().min(1).optional() },
  configDir: { env: 'SIDEGATE_CONFIG_DIR', flag: '--config-dir', schema: z.string().min(1).optional() },
  /** Prompt templates, `{id}/{version}.json|.yaml` + `{id}/labels.json`; default `{dataDir}/prompts`. */
  promptsDir: { env: 'SIDEGATE_PROMPTS_DIR', flag: '--prompts-dir', schema: z.string().min(1).optional() },
  customHosts: { env: 'SIDEGATE_CUSTOM_HOSTS', flag: undefined, schema: commaList.default(['localhost', '127.0.0.1', '::1']) },
  fetchMediaUrls: { env: 'SIDEGATE_FETCH_MEDIA_URLS', flag: undefined, schema: booleanFromEnv.default(false) },
  healthPort: { env: 'SIDEGATE_HEALTH_PORT', flag: '--health-port', schema: z.coerce.number().int().min(0).max(65535).optional() },
  logsPerMonth: { env: 'SIDEGATE_LOGS_PER_MONTH', flag: undefined, schema: z.coerce.number().int().positive().optional() },
  tracesUrl: { env: 'SIDEGATE_TRACES_URL', flag: '--traces-url', schema: httpUrl.optional() },
  /** The Traces view (`/ui/`): on by default; its code loads on the first request to it. */
  ui: { env: 'SIDEGATE_UI', flag: undefined, schema: booleanFromEnv.default(true) },
  /** Metadata keys the Traces view's list shows as columns (and filters on with a click). */
  uiColumns: { env: 'SIDEGATE_UI_COLUMNS', flag: undefined, schema: commaList.default(['user']) },
  /** Jaeger's UI, for "open in Jaeger" links from the Traces view (e.g. http://localhost:16686). */
  jaegerUiUrl: { env: 'SIDEGATE_JAEGER_UI_URL', flag: undefined, schema: httpUrl.optional() },
  // Server limits (issue 15 item 3). The API listens on the pod's loopback, so a well-behaved
  // client sends its head and body at memory speed; these bound the ones that do not.
  headersTimeoutMs: {
    env: 'SIDEGATE_HEADERS_TIMEOUT_MS',
    flag: undefined,
    schema: z.coerce.number().int().positive().default(10_000),
  },
  requestTimeoutMs: {
    env: 'SIDEGATE_REQUEST_TIMEOUT_MS',
    flag: undefined,
    schema: z.coerce.number().int().positive().default(60_000),
  },
  keepAliveTimeoutMs: {
    env: 'SIDEGATE_KEEP_ALIVE_TIMEOUT_MS',
    flag: undefined,
    schema: z.coerce.number().int().positive().default(65_000),
  },
  maxConnections: {
    env: 'SIDEGATE_MAX_CONNECTIONS',
    flag: undefined,
    schema: z.coerce.number().int().positive().default(4096),
  },
  upstreamMaxConnections: {
    env: 'SIDEGATE_UPSTREAM_MAX_CONNECTIONS',
    flag: undefined,
    schema: z.coerce.number().int().positive().default(4096),
  },
  maxInflightBytes: {
    env: 'SIDEGATE_MAX_INFLIGHT_BYTES',
    flag: undefined,
    schema: z.coerce.number().int().positive().optional(),
  },
  maxUpstreamAnswerBytes: {
    env: 'SIDEGATE_MAX_UPSTREAM_ANSWER_BYTES',
    flag: undefined,
    schema: z.coerce.number().int().positive().default(32 * MiB),
  },
  responsesStore: { env: 'SIDEGATE_RESPONSES_STORE', flag: undefined, schema: z.enum(['memory', 'disk']).default('memory') },
  responsesStoreMaxBytes: {
    env: 'SIDEGATE_RESPONSES_STORE_MAX_BYTES',
    flag: undefined,
    schema: z.coerce.number().int().positive().default(64 * MiB),
  },
  responsesStoreTtlSeconds: {
    env: 'SIDEGATE_RESPONSES_STORE_TTL_SECONDS',
    flag: undefined,
    schema: z.coerce.number().int().positive().default(86_400),
  },
  // Target health (issue 24): per-target circuit breaking, and the default retry budget of a
  // routing config that sets no `retry.budget_percent`.
  circuitBreaker: { env: 'SIDEGATE_CIRCUIT_BREAKER', flag: undefined, schema: booleanFromEnv.default(true) },
  retryBudgetPercent: {
    env: 'SIDEGATE_RETRY_BUDGET_PERCENT',
    flag: undefined,
    schema: z.coerce.number().min(0).max(100).default(20),
  },
  shutdownGraceMs: {
    env: 'SIDEGATE_SHUTDOWN_GRACE_MS',
    flag: undefined,
    schema: z.coerce.number().int().min(0).default(25_000),
  },
} as const;

type Fields = typeof fields;
type Mutable<T> = T extends readonly (infer U)[] ? U[] : T;
export type Settings = { -readonly [K in keyof Fields]: Mutable<z.output<Fields[K]['schema']>> } & {
  /** True when no gateway key was configured and one was generated for this run. */
  generatedApiKey: boolean;
};

export class SettingsError extends Error {}

/**
 * Reads flags (which win) and env. Blank env values count as unset. Throws `SettingsError` with
 * one line naming the variable or flag.
 */
export function loadSettings(argv: readonly string[], env: NodeJS.ProcessEnv): Settings {
  const flags = parseFlags(argv);
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(fields) as Array<[keyof Fields, Fields[keyof Fields]]>) {
    const fromFlag = field.flag !== undefined ? flags.get(field.flag) : undefined;
    const fromEnv = env[field.env]?.trim() ? env[field.env]!.trim() : undefined;
    const raw = fromFlag ?? fromEnv;
    const result = (field.schema as z.ZodType).safeParse(raw);
    if (!result.success) {
      const source = fromFlag !== undefined ? field.flag! : field.env;
      const shown = key === 'adminKey' || key === 'masterKey' || key === 'apiKeys' ? '(value hidden)' : JSON.stringify(raw);
      throw new SettingsError(`invalid ${source} ${shown}: ${result.error.issues[0]?.message ?? 'invalid value'}`);
    }
    out[key] = result.data;
  }
  const settings = out as Settings;
  settings.generatedApiKey = false;
  if (settings.apiKeys.length === 0) {
    // Never run open: with no key configured, one is generated for this run and printed once.
    settings.apiKeys = [`sg-${randomBytes(24).toString('base64url')}`];
    settings.generatedApiKey = true;
  }
  return settings;
}

/** Test and embedding helper: full settings from a partial object, defaults for the rest. */
export function settingsWithDefaults(partial: Partial<Settings> = {}): Settings {
  const base = loadSettings([], { SIDEGATE_API_KEYS: 'unused' });
  return { ...base, apiKeys: [], generatedApiKey: false, ...partial };
}

const KNOWN_FLAGS = new Set<string>(Object.values(fields).flatMap((f) => (f.flag ? [f.flag] : [])));

function parseFlags(argv: readonly string[]): Map<string, string> {
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) throw new SettingsError(`unexpected argument ${JSON.stringify(arg)}`);
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg : arg.slice(0, eq);
    if (!KNOWN_FLAGS.has(name)) throw new SettingsError(`unknown flag ${name} (known: ${[...KNOWN_FLAGS].join(', ')})`);
    const value = eq === -1 ? argv[++i] : arg.slice(eq + 1);
    if (value === undefined) throw new SettingsError(`flag ${name} needs a value`);
    flags.set(name, value);
  }
  return flags;
}
