// The floor: the least a Node.js gateway can do and still translate OpenAI → Gemini. node:http in,
// one undici Pool.request out, a minimal translation of the OpenAI JSON body into a Gemini body and
// of the answer back into a `chat.completion` (streams: each Gemini SSE event re-framed as an
// OpenAI `chat.completion.chunk`, then `[DONE]`). No validation, no auth, no routing, no telemetry.
// `npm run bench` runs it as its own process next to sidegate and reports sidegate's figures as
// ratios to it from the same run: it shows what Node itself costs on the machine; everything above
// it is sidegate's.
// With FLOOR_OTLP_ENDPOINT set it is "the floor + SDK": the same proxy recording each request with
// the real OpenTelemetry SDK called the plainest way (bench/floor-telemetry.mjs), exporting to
// that OTLP/HTTP endpoint; what tracing costs any Node.js gateway before any of sidegate's work.
//   node bench/floor.mjs <geminiBaseUrl> [upstreamConnections]
// Prints one JSON line {"url": ...} when listening.
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { installProbe } from './probe.mjs';

// The same two undici modules sidegate loads (src/http-client.ts), so idle memory compares
// like with like: a Pool and the request API, not undici's whole entry.
const load = createRequire(import.meta.url);
const Pool = load('undici/lib/dispatcher/pool.js');
const poolRequest = load('undici/lib/api/api-request.js');

const [upstream, connections = '128'] = process.argv.slice(2);
const pool = new Pool(upstream, { connections: Number(connections), keepAliveTimeout: 30_000 });
// Loaded only when asked for, so the plain floor's idle memory and CPU carry none of it.
const telemetry = process.env.FLOOR_OTLP_ENDPOINT
  ? (await import('./floor-telemetry.mjs')).startFloorTelemetry(process.env.FLOOR_OTLP_ENDPOINT, upstream)
  : undefined;

const FINISH = { STOP: 'stop', MAX_TOKENS: 'length', SAFETY: 'content_filter', RECITATION: 'content_filter' };

function textOf(content) {
  if (typeof content === 'string') return content;
  let text = '';
  for (const part of content ?? []) if (part.type === 'text') text += part.text;
  return text;
}

function toGemini(req) {
  const contents = [];
  let systemInstruction;
  for (const m of req.messages) {
    if (m.role === 'system' || m.role === 'developer') systemInstruction = { parts: [{ text: textOf(m.content) }] };
    else contents.push({ role: m.role === 'assistant' ? 'model' : 'user', parts: [{ text: textOf(m.content) }] });
  }
  const body = { contents };
  if (systemInstruction) body.systemInstruction = systemInstruction;
  const config = {};
  const max = req.max_completion_tokens ?? req.max_tokens;
  if (max != null) config.maxOutputTokens = max;
  if (req.temperature != null) config.temperature = req.temperature;
  if (req.top_p != null) config.topP = req.top_p;
  if (req.stop != null) config.stopSequences = Array.isArray(req.stop) ? req.stop : [req.stop];
  for (const _ in config) {
    body.generationConfig = config;
    break;
  }
  return body;
}

function candidateText(candidate) {
  let text = '';
  for (const part of candidate?.content?.parts ?? []) if (typeof part.text === 'string' && !part.thought) text += part.text;
  return text;
}

function usageOf(u) {
  const prompt = u?.promptTokenCount ?? 0;
  const completion = (u?.candidatesTokenCount ?? 0) + (u?.thoughtsTokenCount ?? 0);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

function read(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

async function handle(req, res) {
  const openai = JSON.parse(await read(req));
  const stream = openai.stream === true;
  const rpc = stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
  const headers = { 'content-type': 'application/json', 'x-goog-api-key': 'bench-provider-key' };
  const recording = telemetry?.start(req.headers, openai.model, headers, openai.max_tokens);
  const up = await poolRequest.call(pool, {
    method: 'POST',
    path: `/v1beta/models/${openai.model}:${rpc}`,
    headers,
    body: JSON.stringify(toGemini(openai)),
  });
  const id = `chatcmpl-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 10)}`;
  const created = Math.floor(Date.now() / 1000);
  if (!stream) {
    const gemini = await up.body.json();
    const candidate = gemini.candidates?.[0];
    const finishReason = FINISH[candidate?.finishReason] ?? 'stop';
    const out = JSON.stringify({
      id,
      object: 'chat.completion',
      created,
      model: openai.model,
      choices: [{ index: 0, message: { role: 'assistant', content: candidateText(candidate) }, finish_reason: finishReason }],
      usage: usageOf(gemini.usageMetadata),
    });
    res.writeHead(up.statusCode, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(out) });
    res.end(out);
    if (recording) telemetry.end(recording, up.statusCode, gemini.modelVersion, gemini.usageMetadata, { responseId: gemini.responseId, finishReason });
    return;
  }
  res.writeHead(up.statusCode, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const includeUsage = openai.stream_options?.include_usage === true;
  const frame = (delta, finish, usage) =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: openai.model, choices: delta ? [{ index: 0, delta, finish_reason: finish }] : [], ...(usage ? { usage } : {}) })}\n\n`;
  let buffered = '';
  let first = true;
  let usage;
  let modelVersion;
  let responseId;
  let finishReason = 'stop';
  for await (const piece of up.body) {
    buffered += piece.toString();
    let end;
    while ((end = buffered.indexOf('\r\n\r\n')) !== -1) {
      const event = buffered.slice(0, end);
      buffered = buffered.slice(end + 4);
      if (!event.startsWith('data: ')) continue;
      const chunk = JSON.parse(event.slice(6));
      const candidate = chunk.candidates?.[0];
      const delta = first ? { role: 'assistant', content: candidateText(candidate) } : { content: candidateText(candidate) };
      first = false;
      usage = chunk.usageMetadata;
      modelVersion = chunk.modelVersion;
      const finish = candidate?.finishReason ? (FINISH[candidate.finishReason] ?? 'stop') : null;
      if (recording) {
        responseId = chunk.responseId;
        if (finish) finishReason = finish;
      }
      res.write(frame(delta, finish));
    }
  }
  if (includeUsage) res.write(frame(undefined, null, usageOf(usage)));
  res.end('data: [DONE]\n\n');
  if (recording) telemetry.end(recording, up.statusCode, modelVersion, usage, { responseId, finishReason });
}

const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
  handle(req, res).catch(() => {
    if (!res.headersSent) res.writeHead(502);
    res.end();
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${server.address().port}` })}\n`));
installProbe();
process.on('SIGTERM', () => process.exit(0));
