/**
 * `npm run demo`: the built-in Gemini emulator and the gateway on free loopback ports, a few
 * requests through the gateway (plain, streaming, an upstream failure), and what happened.
 * No network, no key: the emulator accepts any provider key.
 */
import { startGateway } from './server/start.js';

const GATEWAY_KEY = 'demo-gateway-key';

export async function runDemo(_argv: string[]): Promise<number> {
  const { startEmulator } = await import('./emulator/index.js');
  const emulator = await startEmulator({ port: 0 });
  const gateway = await startGateway({ port: 0, geminiBaseUrl: emulator.url, apiKeys: [GATEWAY_KEY] }, { log: () => {} });
  const out = (line = '') => process.stdout.write(`${line}\n`);
  out(`emulator  ${emulator.url}  (stands in for generativelanguage.googleapis.com)`);
  out(`gateway   ${gateway.url}`);
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

    out('\n3. upstream failure (the emulator answers 503 once)');
    emulator.enqueue({
      status: 503,
      body: { error: { code: 503, message: 'The model is overloaded. Please try again later.', status: 'UNAVAILABLE' } },
      headers: { 'retry-after': '2' },
    });
    const failed = await post({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hello?' }] });
    out(`   HTTP ${failed.status}  retry-after=${failed.headers.get('retry-after')}  body: ${await failed.text()}`);

    out('\n4. bad input never reaches upstream');
    const bad = await post({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hi' }], temperature: 7 });
    out(`   HTTP ${bad.status}  body: ${await bad.text()}`);
    return 0;
  } finally {
    await gateway.close();
    await emulator.close();
  }
}
