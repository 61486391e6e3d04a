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
  // Tracing on, exporting to a collector address where nothing listens: the dead-collector case.
  const telemetry = createTelemetry({ env: process.env, logger: () => {} });
  const gateway = await startGateway(
    { port: 0, geminiBaseUrl: baseUrl, apiKeys: [key] },
    { telemetry, log: () => {} },
  );
  close = () => gateway.close();
  process.stdout.write(`${JSON.stringify({ url: gateway.url })}\n`);
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
