// The floor for comparison: node:http in, undici out over the same keep-alive pool, a JSON parse and
// stringify, and nothing else (no validation, translation, auth or tracing). `npm run bench` reports
// sidegate's CPU per request next to this one, which separates what sidegate adds from what the
// machine's sockets and the runtime cost.
import { createServer } from 'node:http';
import { Agent, request } from 'undici';
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
process.on('message', (m) => { if (m?.type === 'cpu') process.send({ type: 'cpu', ...process.cpuUsage() }); });
process.on('SIGTERM', () => process.exit(0));
