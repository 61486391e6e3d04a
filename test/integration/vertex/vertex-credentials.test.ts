/**
 * Gemini on Vertex AI through the official `openai` SDK and `portkey-ai`, with each kind of
 * credential, against the emulator's Vertex paths, metadata server and token endpoint (issue 22).
 * What is asserted is what a user sees: the answers, the exact upstream requests the emulator
 * received, the tokens it issued, and the attempt spans.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import OpenAI from 'openai';
import { Portkey } from 'portkey-ai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN_KEY, AI_STUDIO_KEY, GATEWAY_KEY, PROJECT, REGION, startVertexWorld, type VertexWorld } from './vertex-harness.js';

let w: VertexWorld;
const savedMetadataHost = process.env.GCE_METADATA_HOST;
beforeAll(async () => {
  w = await startVertexWorld();
  // ADC: Google's auth library finds the metadata server where GCE_METADATA_HOST says (loopback here).
  process.env.GCE_METADATA_HOST = w.emulator.url.slice('http://'.length);
});
afterAll(async () => {
  if (savedMetadataHost === undefined) delete process.env.GCE_METADATA_HOST;
  else process.env.GCE_METADATA_HOST = savedMetadataHost;
  await w?.close();
});
beforeEach(() => {
  w.emulator.reset();
  w.exporter.reset();
});

const MODEL = 'gemini-2.5-flash';
const vertexHeaders = { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-provider': 'vertex-ai', 'x-gateway-vertex-project-id': PROJECT, 'x-gateway-vertex-region': REGION };
/** An OpenAI client with a placeholder key (the SDK needs one; it is not a Google credential). */
const openai = (headers: Record<string, string>, apiKey = 'unused') => new OpenAI({ baseURL: `${w.gateway.url}/v1`, apiKey, defaultHeaders: headers, maxRetries: 0 });
const generateCalls = () => w.emulator.requests.filter((r) => r.rpc === 'generateContent' || r.rpc === 'streamGenerateContent');
const scopedPath = (rpc: string, region = REGION) => `/v1/projects/${PROJECT}/locations/${region}/publishers/google/models/${MODEL}:${rpc}`;

describe('a raw access token (what gcloud auth print-access-token gives)', () => {
  it('openai SDK: passed upstream as it is, on the regional project path, with Vertex attempt spans', async () => {
    const token = w.emulator.googleAuth.issueToken();
    const { data, response } = await openai(vertexHeaders, token)
      .chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Hello' }] })
      .withResponse();
    expect(data.choices[0]!.message.content).toBe('Echo: Hello');
    const [call] = generateCalls();
    expect(call!.path).toBe(scopedPath('generateContent'));
    expect(call!.headers.authorization).toBe(`Bearer ${token}`);
    expect(call!.headers['x-goog-api-key']).toBeUndefined();
    const [attempt] = w.attempts(response.headers.get('traceparent'));
    expect(attempt!.attributes).toMatchObject({
      'gen_ai.provider.name': 'gcp.vertex_ai',
      'gen_ai.operation.name': 'generate_content',
      'server.address': '127.0.0.1',
      'gcp.project_id': PROJECT,
      'cloud.region': REGION,
      'gen_ai.usage.input_tokens': expect.any(Number),
    });
    expect(w.emulator.googleAuth.issuedBy('metadata')).toHaveLength(0);
  });

  it('portkey-ai: provider vertex-ai with vertexProjectId / vertexRegion, streamed with alt=sse', async () => {
    const token = w.emulator.googleAuth.issueToken();
    const client = new Portkey({
      apiKey: GATEWAY_KEY,
      baseURL: `${w.gateway.url}/v1`,
      provider: 'vertex-ai',
      vertexProjectId: PROJECT,
      vertexRegion: 'global',
      Authorization: `Bearer ${token}`,
      maxRetries: 0,
    } as never);
    const stream = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Stream me' }], stream: true });
    let text = '';
    for await (const chunk of stream as AsyncIterable<{ choices: Array<{ delta?: { content?: string } }> }>) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe('Echo: Stream me');
    const [call] = generateCalls();
    expect(call!.path).toBe(`${scopedPath('streamGenerateContent', 'global')}?alt=sse`);
    expect(call!.headers.authorization).toBe(`Bearer ${token}`);
  });

  it('an expired token is Vertex\'s 401, not a refresh (the gateway did not mint it)', async () => {
    const token = w.emulator.googleAuth.issueToken(-1);
    const err = await openai(vertexHeaders, token)
      .chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Hi' }] })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 401 });
    expect(JSON.stringify(err)).not.toContain(token);
  });
});

describe('an express-mode API key', () => {
  it('goes as x-goog-api-key to the project-less express path', async () => {
    const key = `AIza${'Q'.repeat(35)}`;
    const completion = await openai({ 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-provider': 'vertex-ai' }, key).chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(completion.choices[0]!.message.content).toBe('Echo: Hi');
    const [call] = generateCalls();
    expect(call!.path).toBe(`/v1/publishers/google/models/${MODEL}:generateContent`);
    expect(call!.headers['x-goog-api-key']).toBe(key);
    expect(call!.headers.authorization).toBeUndefined();
  });
});

describe('a service-account key', () => {
  it('in a routing config: a JWT signed with the key is exchanged at its token_uri, and the token cached', async () => {
    const sa = w.serviceAccount();
    const config = JSON.stringify({ provider: 'vertex-ai', vertex_region: REGION, vertex_service_account_json: sa.json });
    const client = openai({ 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-config': config });
    for (const text of ['one', 'two']) {
      const completion = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: text }] });
      expect(completion.choices[0]!.message.content).toBe(`Echo: ${text}`);
    }
    const issued = w.emulator.googleAuth.issuedBy('oauth').filter((t) => t.subject === sa.email);
    expect(issued).toHaveLength(1);
    expect(generateCalls().map((c) => [c.path, c.headers.authorization])).toStrictEqual([
      [scopedPath('generateContent'), `Bearer ${issued[0]!.token}`],
      [scopedPath('generateContent'), `Bearer ${issued[0]!.token}`],
    ]);
  });

  it('in a virtual key of provider vertex-ai: stored encrypted, never listed, used through @slug', async () => {
    const sa = w.serviceAccount();
    const add = await fetch(`${w.gateway.url}/v1/virtual-keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gateway-api-key': ADMIN_KEY },
      body: JSON.stringify({ slug: 'vertex-sa', provider: 'vertex-ai', vertex_region: 'europe-west4', vertex_service_account_json: JSON.stringify(sa.json) }),
    });
    expect(add.status).toBe(201);
    const listed = await (await fetch(`${w.gateway.url}/v1/virtual-keys`, { headers: { 'x-gateway-api-key': ADMIN_KEY } })).text();
    expect(listed).toContain('"vertex_project_id":"sidegate-emulator"');
    expect(listed).not.toContain(sa.email);
    expect(listed).not.toContain('PRIVATE KEY');
    const stored = await readFile(join(w.dataDir, 'virtual-keys.enc'));
    expect(stored.includes(Buffer.from(sa.email))).toBe(false);
    expect(stored.includes(Buffer.from('PRIVATE KEY'))).toBe(false);

    const completion = await openai({ 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-provider': '@vertex-sa' }).chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'via a virtual key' }],
    });
    expect(completion.choices[0]!.message.content).toBe('Echo: via a virtual key');
    expect(generateCalls()[0]!.path).toBe(`/v1/projects/${PROJECT}/locations/europe-west4/publishers/google/models/${MODEL}:generateContent`);
  });

  it('a token endpoint that refuses the JWT is a 502 vertex_auth_failed naming the source, with no key field in it', async () => {
    const sa = w.serviceAccount({ register: false });
    const config = JSON.stringify({ provider: 'vertex-ai', vertex_service_account_json: sa.json });
    const res = await fetch(`${w.gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-config': config },
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'Hi' }] }),
    });
    expect(res.status).toBe(502);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('vertex_auth_failed');
    expect(body.error.message).toBe('could not authenticate to Vertex AI with the service-account key: the token endpoint answered HTTP 400');
    expect(generateCalls()).toHaveLength(0);
  });
});

describe('application default credentials (GKE Workload Identity: the metadata server)', () => {
  it('no credential: the token comes from the metadata server at GCE_METADATA_HOST', async () => {
    const completion = await openai(vertexHeaders).chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'from the pod' }] });
    expect(completion.choices[0]!.message.content).toBe('Echo: from the pod');
    const metadataTokens = w.emulator.googleAuth.issuedBy('metadata');
    expect(metadataTokens.length).toBeGreaterThanOrEqual(1);
    expect(generateCalls()[0]!.headers.authorization).toBe(`Bearer ${metadataTokens.at(-1)!.token}`);
  });

  it('the project too, when the request names none (metadata project/project-id)', async () => {
    const completion = await openai({ 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-provider': 'vertex-ai', 'x-gateway-vertex-region': REGION }).chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'which project' }],
    });
    expect(completion.choices[0]!.message.content).toBe('Echo: which project');
    expect(generateCalls()[0]!.path).toBe(scopedPath('generateContent'));
  });
});

describe('token expiry and refresh', () => {
  it('50 concurrent requests on an expiring token share exactly one refresh', async () => {
    const sa = w.serviceAccount();
    // The first token lives 60 s, inside the 3-minute refresh margin: the next use refreshes.
    w.emulator.googleAuth.scriptTokenLifetimes(60, 3600);
    const client = openai({ 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-config': JSON.stringify({ provider: 'vertex-ai', vertex_region: REGION, vertex_service_account_json: sa.json }) });
    await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'first' }] });
    const first = w.emulator.googleAuth.issuedBy('oauth').filter((t) => t.subject === sa.email);
    expect(first).toHaveLength(1);

    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: `n${i}` }] })),
    );
    expect(answers.map((a) => a.choices[0]!.message.content)).toStrictEqual(Array.from({ length: 50 }, (_, i) => `Echo: n${i}`));
    const issued = w.emulator.googleAuth.issuedBy('oauth').filter((t) => t.subject === sa.email);
    expect(issued).toHaveLength(2);
    const tokens = new Set(generateCalls().slice(1).map((c) => c.headers.authorization));
    expect(tokens).toStrictEqual(new Set([`Bearer ${issued[1]!.token}`]));
  });
});

describe('embeddings and models for a Vertex target', () => {
  it('POST /v1/embeddings → :predict, in the form Vertex serves it', async () => {
    const token = w.emulator.googleAuth.issueToken();
    const res = await openai(vertexHeaders, token).embeddings.create({ model: 'text-embedding-005', input: ['hello world', 'again'], encoding_format: 'float' });
    expect(res.data.map((d) => d.embedding.length)).toStrictEqual([768, 768]);
    expect(res.usage.prompt_tokens).toBe(Math.ceil('hello world'.length / 4) + Math.ceil('again'.length / 4));
    const call = w.emulator.requests.find((r) => r.rpc === 'predict')!;
    expect(call.path).toBe(`/v1/projects/${PROJECT}/locations/${REGION}/publishers/google/models/text-embedding-005:predict`);
    expect(call.body).toStrictEqual({ instances: [{ content: 'hello world' }, { content: 'again' }] });
  });

  it('GET /v1/models lists Vertex publisher models', async () => {
    const token = w.emulator.googleAuth.issueToken();
    const models = await openai(vertexHeaders, token).models.list();
    const ids = models.data.map((m) => m.id);
    expect(ids).toContain(MODEL);
    expect(ids).toContain('text-embedding-005');
    expect(w.emulator.requests.some((r) => r.path.startsWith('/v1beta1/publishers/google/models?'))).toBe(true);
  });
});

describe('fallback between AI Studio and Vertex', () => {
  it('an AI Studio 503 falls back to a Vertex target; both attempts are spans', async () => {
    const token = w.emulator.googleAuth.issueToken();
    w.emulator.enqueue({ status: 503, body: { error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } } });
    const config = {
      strategy: { mode: 'fallback' },
      targets: [
        { provider: 'google', api_key: AI_STUDIO_KEY },
        { provider: 'vertex-ai', api_key: token, vertex_project_id: PROJECT, vertex_region: REGION },
      ],
    };
    const { data, response } = await openai({ 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-config': JSON.stringify(config) })
      .chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'fall back' }] })
      .withResponse();
    expect(data.choices[0]!.message.content).toBe('Echo: fall back');
    expect(generateCalls().map((c) => c.path)).toStrictEqual([`/v1beta/models/${MODEL}:generateContent`, scopedPath('generateContent')]);
    const attempts = w.attempts(response.headers.get('traceparent'));
    expect(attempts.map((a) => [a.attributes['gen_ai.provider.name'], a.attributes['http.response.status_code'], a.attributes['gateway.target.index']])).toStrictEqual([
      ['gcp.gemini', 503, 'config.targets[0]'],
      ['gcp.vertex_ai', 200, 'config.targets[1]'],
    ]);
    expect(attempts[1]!.attributes['gcp.project_id']).toBe(PROJECT);
    expect(attempts[1]!.attributes['gateway.cost.usd']).toEqual(expect.any(Number));
  });

  it('Vertex\'s 429 RESOURCE_EXHAUSTED is retried after its RetryInfo delay', async () => {
    const token = w.emulator.googleAuth.issueToken();
    w.emulator.enqueue({
      status: 429,
      body: {
        error: {
          code: 429,
          message: 'Resource exhausted. Please try again later. Please refer to https://cloud.google.com/vertex-ai/generative-ai/docs/error-code-429 for more details.',
          status: 'RESOURCE_EXHAUSTED',
          details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '1s' }],
        },
      },
    });
    const config = { retry: { attempts: 1, use_retry_after_header: true }, provider: 'vertex-ai', api_key: token, vertex_project_id: PROJECT, vertex_region: REGION };
    const { data, response } = await openai({ 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-config': JSON.stringify(config) })
      .chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'again' }] })
      .withResponse();
    expect(data.choices[0]!.message.content).toBe('Echo: again');
    const attempts = w.attempts(response.headers.get('traceparent'));
    expect(attempts.map((a) => [a.attributes['http.response.status_code'], a.attributes['http.request.resend_count']])).toStrictEqual([
      [429, undefined],
      [200, 1],
    ]);
    const gapMs = (attempts[1]!.startTime[0] - attempts[0]!.endTime[0]) * 1000 + (attempts[1]!.startTime[1] - attempts[0]!.endTime[1]) / 1e6;
    expect(gapMs).toBeGreaterThanOrEqual(900);
  });
});

describe('secret scan', () => {
  it('no token, key or service-account field in any span or log line of this suite', () => {
    const issued = w.emulator.googleAuth.issued.map((t) => t.token);
    expect(issued.length).toBeGreaterThan(5);
    const texts = [
      ...w.logs,
      ...w.exporter.getFinishedSpans().map((s) => JSON.stringify({ a: s.attributes, e: s.events, st: s.status, n: s.name, l: s.links })),
    ].join('\n');
    for (const token of issued) expect(texts).not.toContain(token);
    expect(texts).not.toMatch(/ya29\.|PRIVATE KEY|private_key|iam\.gserviceaccount\.com|AIzaQQQ/);
  });
});
