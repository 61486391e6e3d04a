// A benchmark participant in its own process (so the load generator does not share its CPU):
//   node bench/child.mjs emulator
//   node bench/child.mjs gateway <geminiBaseUrl> <gatewayKey>
// Prints one JSON line {"url": ...} when listening; answers IPC {type:'mem'} with process.memoryUsage().
const [role, baseUrl, key] = process.argv.slice(2);

let close;
if (role === 'emulator') {
  const { startEmulator } = await import('../dist/emulator/index.js');
  const emulator = await startEmulator({ port: 0 });
  close = () => emulator.close();
  process.stdout.write(`${JSON.stringify({ url: emulator.url })}\n`);
} else if (role === 'gateway') {
  const { startGateway } = await import('../dist/server/start.js');
  const { createTelemetry } = await import('../dist/telemetry/create-telemetry.js');
  // Tracing on, exporting to whatever OTEL_EXPORTER_OTLP_ENDPOINT names (run.mjs: a live sink).
  const telemetry = createTelemetry({ env: process.env, logger: () => {} });
  const gateway = await startGateway(
    { port: 0, geminiBaseUrl: baseUrl, apiKeys: [key] },
    { telemetry, log: () => {} },
  );
  close = () => gateway.close();
  process.stdout.write(`${JSON.stringify({ url: gateway.url })}\n`);
} else if (role === 'sink') {
  // A live OTLP/HTTP receiver that accepts and discards: the gateway pays the real export cost
  // (serialisation, HTTP) without a collector's own CPU use skewing the figures.
  const { createServer } = await import('node:http');
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/x-protobuf', 'content-length': 0 });
      res.end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  close = () => new Promise((resolve) => server.close(resolve));
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${server.address().port}` })}\n`);
} else {
  process.stderr.write(`unknown role ${role}\n`);
  process.exit(2);
}

process.on('message', (msg) => {
  if (msg?.type === 'cpu') process.send?.({ type: 'cpu', ...process.cpuUsage() });
  if (msg?.type === 'mem') {
    if (msg.gc && global.gc) global.gc();
    process.send?.({ type: 'mem', ...process.memoryUsage() });
  }
});
process.on('SIGTERM', () => {
  void close().finally(() => process.exit(0));
});
