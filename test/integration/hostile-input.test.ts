/**
 * Hostile input gets a 4xx naming the field, never a 500 (issue 15 item 2): nesting bounded once at
 * the edge (64 JSON levels for schemas, 512 for any JSON value, including the JSON a tool call's
 * arguments or a tool result carry as text), malformed percent-escapes in the path; and a 500
 * that can still happen (a bug) always leaves a log line saying why.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Provider } from '../../src/providers/provider.js';
import { postChat, startHarness, type Harness } from './harness.js';

const logs: string[] = [];
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ adminKey: 'test-admin-key-0123456789' }, { log: (line) => logs.push(line) });
});
afterAll(() => h.close());
beforeEach(() => {
  h.emulator.reset();
  logs.length = 0;
});

const MODEL = 'gemini-2.5-flash';
const user = { role: 'user', content: 'hi' };

/** A JSON schema nesting `properties` n times (2n + 1 JSON levels), built without recursion. */
function deepSchema(n: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < n; i++) schema = { type: 'object', properties: { a: schema } };
  return schema;
}
function deepItems(n: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < n; i++) schema = { type: 'array', items: schema };
  return schema;
}
/** JSON text nested n levels: `{"a":{"a":…1…}}`. */
const deepJsonText = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
/** The same schema as JSON text (JSON.stringify itself would overflow the test's stack at this depth). */
const deepSchemaText = (n: number) => `${'{"type":"object","properties":{"a":'.repeat(n)}{"type":"string"}${'}}'.repeat(n)}`;
const tool = (parameters: unknown) => [{ type: 'function', function: { name: 'f', parameters } }];
const call = (args: string) => ({ role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: args } }] });

async function expect400(res: Response, param: string | RegExp) {
  const text = await res.text();
  expect(res.status, text.slice(0, 300)).toBe(400);
  const error = (JSON.parse(text) as { error: { param: string; code: string; message: string } }).error;
  if (typeof param === 'string') expect(error.param).toBe(param);
  else expect(error.param).toMatch(param);
  return error;
}

describe('nesting is bounded at the edge', () => {
  it.each([
    { name: 'a function schema 40 levels deep (81 JSON levels)', body: { tools: tool(deepSchema(40)) }, param: 'tools[0].function.parameters' },
    { name: 'an items schema 80 levels deep', body: { tools: tool({ type: 'object', properties: { x: deepItems(80) } }) }, param: 'tools[0].function.parameters' },
    {
      name: 'a response_format schema 40 levels deep',
      body: { response_format: { type: 'json_schema', json_schema: { name: 's', schema: deepSchema(40) } } },
      param: 'response_format.json_schema.schema',
    },
    { name: 'legacy functions with a deep schema', body: { functions: [{ name: 'f', parameters: deepSchema(40) }] }, param: 'functions[0].parameters' },
    { name: 'tool-call arguments nested 100,000 levels', body: { messages: [user, call(deepJsonText(100_000))], tools: tool({ type: 'object' }) }, param: 'messages[1].tool_calls[0].function.arguments' },
    {
      name: 'a tool result nested 100,000 levels',
      body: { messages: [user, call('{}'), { role: 'tool', tool_call_id: 'c1', content: deepJsonText(100_000) }], tools: tool({ type: 'object' }) },
      param: 'messages[2].content',
    },
    {
      name: 'a tool result text part nested 20,000 levels',
      body: { messages: [user, call('{}'), { role: 'tool', tool_call_id: 'c1', content: [{ type: 'text', text: deepJsonText(20_000) }] }], tools: tool({ type: 'object' }) },
      param: 'messages[2].content[0].text',
    },
    { name: 'a legacy function result nested 20,000 levels', body: { messages: [user, { role: 'function', name: 'f', content: deepJsonText(20_000) }] }, param: 'messages[1].content' },
  ])('$name → 400 naming $param, nothing sent upstream', async ({ body, param }) => {
    const error = await expect400(await postChat(h, { model: MODEL, messages: [user], ...body }), param);
    expect(error.code).toBe('nesting_too_deep');
    expect(h.emulator.requests).toHaveLength(0);
  });

  // Past the 512-level limit on any value, the body is refused as it is read, before any schema.
  it.each([
    { name: 'a function schema 50,000 levels deep', field: `"tools":[{"type":"function","function":{"name":"f","parameters":${deepSchemaText(50_000)}}}]`, param: /^tools\[0\]\.function\.parameters\./ },
    { name: 'a response_format schema 50,000 levels deep', field: `"response_format":{"type":"json_schema","json_schema":{"name":"s","schema":${deepSchemaText(50_000)}}}`, param: /^response_format\.json_schema\.schema\./ },
    { name: 'an items schema 50,000 levels deep', field: `"tools":[{"type":"function","function":{"name":"f","parameters":${'{"type":"array","items":'.repeat(50_000)}{}${'}'.repeat(50_000)}}}]`, param: /^tools\[0\]\.function\.parameters\.items/ },
    { name: 'any other value nested 100,000 levels', field: `"metadata":${deepJsonText(100_000)}`, param: /^metadata(\.a)+$/ },
  ])('$name → 400 naming $param, nothing sent upstream', async ({ field, param }) => {
    const body = `{"model":"${MODEL}","messages":[{"role":"user","content":"hi"}],${field}}`;
    const error = await expect400(await postChat(h, body), param);
    expect(error.code).toBe('nesting_too_deep');
    expect(h.emulator.requests).toHaveLength(0);
  });

  it('a raw body nested 100,000 levels → 400', async () => {
    const res = await postChat(h, `${'['.repeat(100_000)}${']'.repeat(100_000)}`);
    await expect400(res, /^(\[0\]){8}$/);
  });

  it('a routing config nested 1,000 levels in its header → 400 naming the config', async () => {
    const res = await postChat(h, { model: MODEL, messages: [user] }, { ...h.headers, 'x-gateway-config': deepJsonText(1000) });
    await expect400(res, 'config');
  });

  it('a schema within the limits still reaches Gemini whole', async () => {
    const res = await postChat(h, { model: MODEL, messages: [user], tools: tool(deepSchema(31)) });
    expect(res.status).toBe(200);
    const sent = h.emulator.requests[0]!.body as { tools: Array<{ functionDeclarations: Array<{ parametersJsonSchema: unknown }> }> };
    expect(sent.tools[0]!.functionDeclarations[0]!.parametersJsonSchema).toStrictEqual(deepSchema(31));
  });

  it('no 500 and no log line for any of them', () => {
    expect(logs).toStrictEqual([]);
  });
});

describe('malformed percent-escapes in the path', () => {
  it.each([
    { method: 'POST', path: '/v1/chat/completions%zz' },
    { method: 'DELETE', path: '/v1/virtual-keys/%E0%A4%A' },
    { method: 'GET', path: '/v1/files/%E0%A4%A' },
    { method: 'GET', path: '/v1/files/%' },
  ])('$method $path → 4xx envelope, no log line', async ({ method, path }) => {
    const res = await fetch(`${h.gateway.url}${path}`, {
      method,
      headers: { ...h.headers, 'x-gateway-api-key': method === 'DELETE' ? 'test-admin-key-0123456789' : h.headers['x-gateway-api-key']! },
      ...(method === 'POST' ? { body: JSON.stringify({ model: MODEL, messages: [user] }) } : {}),
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(((await res.json()) as { error: { message: string } }).error.message).toBeTruthy();
    expect(logs).toStrictEqual([]);
  });
});

describe('a 500 always says why in the log', () => {
  let broken: Harness;
  const brokenLogs: string[] = [];
  beforeAll(async () => {
    const bug = (): never => {
      throw new TypeError('Cannot read properties of undefined (reading "candidates")');
    };
    const provider: Provider = { name: 'google', telemetryName: 'gcp.gemini', operationName: 'generate_content', chat: async () => bug(), chatStream: async () => bug() };
    broken = await startHarness({}, { log: (line) => brokenLogs.push(line), providers: { google: provider } });
  });
  afterAll(() => broken.close());
  beforeEach(() => {
    brokenLogs.length = 0;
  });

  it.each([{ stream: false }, { stream: true }])('stream: $stream → 500 internal_error and one log line with the cause', async ({ stream }) => {
    const res = await postChat(broken, { model: MODEL, messages: [user], stream });
    expect(res.status).toBe(500);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('internal_error');
    expect(brokenLogs).toHaveLength(1);
    expect(brokenLogs[0]).toMatch(/^sidegate: unexpected error on POST \/v1\/chat\/completions: TypeError: Cannot read properties of undefined/);
  });

  it('a bug after the stream started → error event and a log line', async () => {
    const provider: Provider = {
      name: 'google',
      telemetryName: 'gcp.gemini',
      operationName: 'generate_content',
      chat: async () => {
        throw new Error('unused');
      },
      chatStream: async () => ({
        status: 200,
        outcome: () => ({ finishReasons: [], warnings: [] }),
        chunks: (async function* () {
          yield { id: 'x', object: 'chat.completion.chunk' as const, created: 0, model: MODEL, choices: [{ index: 0, delta: { content: 'a' }, finish_reason: null, logprobs: null }] };
          throw new RangeError('Invalid array length');
        })(),
      }),
    };
    const midStream = await startHarness({}, { log: (line) => brokenLogs.push(line), providers: { google: provider } });
    try {
      const res = await postChat(midStream, { model: MODEL, messages: [user], stream: true });
      const text = await res.text();
      expect(text).toContain('"code":"internal_error"');
      expect(brokenLogs).toHaveLength(1);
      expect(brokenLogs[0]).toMatch(/RangeError: Invalid array length/);
    } finally {
      await midStream.close();
    }
  });
});
