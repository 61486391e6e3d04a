/**
 * `npm run demo`: the built-in Gemini emulator and the gateway on free loopback ports, a few
 * requests through the gateway (plain, streaming, an upstream failure retried and not, bad input,
 * a Vertex AI call), and what happened.
 * No network, no key: the emulator accepts any provider key.
 */
import { startGateway } from './gateway/start-gateway.js';

const GATEWAY_KEY = 'demo-gateway-key';

export async function runDemo(_argv: string[]): Promise<number> {
  const { startEmulator } = await import('./emulator/index.js');
  const emulator = await startEmulator({ port: 0 });
  // Spans are always made (responses carry traceparent); they are exported only when an OTLP
  // endpoint is configured, e.g. OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318 npm run demo.
  const { createTelemetry } = await import('./telemetry/create-telemetry.js');
  const exporting = Boolean(process.env.OTEL_EXPORTER_OTLP_ENDPOINT || process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
  const telemetry = createTelemetry({
    env: { OTEL_SERVICE_NAME: 'sidegate-demo', ...process.env, ...(exporting ? {} : { OTEL_TRACES_EXPORTER: 'none', OTEL_METRICS_EXPORTER: 'none' }) },
    logger: () => {},
  });
  const gateway = await startGateway({ port: 0, geminiBaseUrl: emulator.url, vertexBaseUrl: emulator.url, apiKeys: [GATEWAY_KEY] }, { telemetry, log: () => {} });
  const out = (line = '') => process.stdout.write(`${line}\n`);
  out(`emulator  ${emulator.url}  (stands in for generativelanguage.googleapis.com)`);
  out(`gateway   ${gateway.url}`);
  out(`tracing   ${exporting ? 'spans exported over OTLP (OTEL_EXPORTER_OTLP_ENDPOINT)' : 'spans made but not exported (set OTEL_EXPORTER_OTLP_ENDPOINT to send them)'}`);
  const headers = {
    'content-type': 'application/json',
    'x-gateway-api-key': GATEWAY_KEY,
    'x-gateway-provider': 'google',
    authorization: 'Bearer demo-provider-key',
  };
  const post = (body: unknown) =>
    fetch(`${gateway.url}/v1/chat/completions`, { method: 'POST', headers, body: JSON.stringify(body) });

  try {
    out('\n1. plain request');
    const plain = await post({
      model: 'gemini-2.5-flash',
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'Say hello to the sidecar.' },
      ],
    });
    const answer = (await plain.json()) as any;
    out(`   HTTP ${plain.status}  finish_reason=${answer.choices?.[0]?.finish_reason}  usage=${JSON.stringify(answer.usage)}`);
    out(`   content: ${JSON.stringify(answer.choices?.[0]?.message?.content)}`);
    const upstream = emulator.requests.at(-1);
    out(`   upstream: ${upstream?.method} ${upstream?.path}`);
    out(`   upstream body: ${JSON.stringify(upstream?.body)}`);

    out('\n2. streaming request');
    const stream = await post({
      model: 'gemini-2.5-flash',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'Stream a short greeting, please.' }],
    });
    const text = await stream.text();
    const events = text.split('\n\n').filter((e) => e.startsWith('data: '));
    out(`   HTTP ${stream.status}  ${events.length} events, last: ${events.at(-1)}`);
    let streamed = '';
    for (const e of events.slice(0, -1)) streamed += (JSON.parse(e.slice(6)).choices?.[0]?.delta?.content as string | undefined) ?? '';
    out(`   streamed content: ${JSON.stringify(streamed)}`);

    const overloaded = () =>
      emulator.enqueue({
        status: 503,
        body: { error: { code: 503, message: 'The model is overloaded. Please try again later.', status: 'UNAVAILABLE' } },
        headers: { 'retry-after': '1' },
      });

    out('\n3. upstream failure, retried by a routing config (the emulator answers 503 once)');
    overloaded();
    const retried = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...headers, 'x-gateway-config': JSON.stringify({ retry: { attempts: 2 } }) },
      body: JSON.stringify({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hello again?' }] }),
    });
    await retried.text();
    out(`   HTTP ${retried.status}  x-gateway-retry-attempt-count=${retried.headers.get('x-gateway-retry-attempt-count')}  traceparent=${retried.headers.get('traceparent')}`);

    out('\n4. upstream failure without a retry config: the status and message pass through');
    overloaded();
    const failed = await post({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hello?' }] });
    out(`   HTTP ${failed.status}  retry-after=${failed.headers.get('retry-after')}  body: ${await failed.text()}`);

    out('\n5. bad input never reaches upstream');
    const bad = await post({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hi' }], temperature: 7 });
    out(`   HTTP ${bad.status}  body: ${await bad.text()}`);

    out('\n6. Gemini on Vertex AI with an access token (the emulator stands in for aiplatform.googleapis.com)');
    const vertex = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-gateway-api-key': GATEWAY_KEY,
        'x-gateway-provider': 'vertex-ai',
        'x-gateway-vertex-project-id': emulator.googleAuth.projectId,
        'x-gateway-vertex-region': 'us-central1',
        // What `gcloud auth print-access-token` would give; a token the emulator issued.
        authorization: `Bearer ${emulator.googleAuth.issueToken()}`,
      },
      body: JSON.stringify({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hello from Vertex' }] }),
    });
    const vertexAnswer = (await vertex.json()) as any;
    out(`   HTTP ${vertex.status}  content: ${JSON.stringify(vertexAnswer.choices?.[0]?.message?.content)}`);
    out(`   upstream: ${emulator.requests.at(-1)?.method} ${emulator.requests.at(-1)?.path}`);
    return 0;
  } finally {
    await gateway.close();
    await emulator.close();
  }
}
