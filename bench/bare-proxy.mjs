// The bare proxy: node:http in, undici out over a keep-alive agent, a JSON parse and stringify, and
// nothing else (no translation at all: it sends a fixed Gemini body; no validation, auth or tracing).
// Below the floor (floor.mjs, which translates): it shows what the machine's sockets and the runtime
// cost for one hop.
import { createServer } from 'node:http';
import { Agent, request } from 'undici';
import { installProbe } from './probe.mjs';
const upstream = process.argv[2];
const agent = new Agent({ connections: 64 });
const server = createServer(async (req, res) => {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const r = await request(`${upstream}/v1beta/models/gemini-2.5-flash:generateContent`, { method: 'POST', dispatcher: agent, headers: { 'content-type': 'application/json', 'x-goog-api-key': 'x' }, body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Say hello to the benchmark.' }] }] }) });
  const text = await r.body.text();
  const out = JSON.stringify(JSON.parse(text));
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(out) });
  res.end(out);
});
server.listen(0, '127.0.0.1', () => process.stdout.write(JSON.stringify({ url: `http://127.0.0.1:${server.address().port}` }) + '\n'));
installProbe();
process.on('SIGTERM', () => process.exit(0));
