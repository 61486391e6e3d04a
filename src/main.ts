#!/usr/bin/env node
/**
 * CLI: `sidegate serve | demo | emulator | keys | trace | traces | prompts`. The emulator and the demo are loaded with a
 * dynamic import so the request path never imports them (DESIGN Decision 14). Each command imports
 * only what it runs; `serve` first holds V8's young generation small while the gateway loads
 * (server/hold-young-generation.ts), so nothing is imported before that.
 */

const USAGE = `usage: sidegate <command> [flags]

commands:
  serve      run the gateway (flags: --port, --host, --gemini-base-url, --max-body-bytes,
             --upstream-timeout-ms, --data-dir, --config-dir, --prompts-dir, --health-port, --traces-url; env SIDEGATE_*)
  demo       start the built-in Gemini emulator and the gateway, send sample requests, print what happened
  emulator   run the Gemini API emulator (--port, default 8788; --host)
  keys       manage virtual keys: keys add <slug> --provider google (secret on stdin) | keys list | keys rm <slug>
  trace      print one trace read back from the trace backend: trace <traceId> [--json] [--traces-url URL]
             (SIDEGATE_TRACES_URL, e.g. http://localhost:16686 for Jaeger)
  traces     list recent traces with their totals: traces [--since 1h] [--limit 50] [--service NAME] [--json]
  prompts    prompt templates: prompts list | prompts show <id> | prompts render <id> --var name=value (--version N | --label L)
`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      return serve(rest);
    case 'emulator': {
      const { runEmulatorCli } = await import('./emulator/index.js');
      await runEmulatorCli(rest);
      return 0;
    }
    case 'demo': {
      const { runDemo } = await import('./demo.js');
      return runDemo(rest);
    }
    case 'prompts': {
      const { runPromptsCli } = await import('./prompts/prompts-cli.js');
      return runPromptsCli(rest, { stdout: process.stdout, stderr: process.stderr, env: process.env });
    }
    case 'keys': {
      const { runKeysCli } = await import('./keys/keys-cli.js');
      return runKeysCli(rest, { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env });
    }
    case 'trace':
    case 'traces': {
      const { runTraceCli, runTracesCli } = await import('./traces/traces-cli.js');
      const io = { stdout: process.stdout, stderr: process.stderr, env: process.env };
      return command === 'trace' ? runTraceCli(rest, io) : runTracesCli(rest, io);
    }
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(USAGE);
      return command === undefined ? 2 : 0;
    default:
      process.stderr.write(`sidegate: unknown command ${JSON.stringify(command)}\n${USAGE}`);
      return 2;
  }
}

async function serve(argv: string[]): Promise<number> {
  await import('./server/hold-young-generation.js');
  const { loadSettings, SettingsError } = await import('./config/settings.js');
  const { startGateway } = await import('./gateway/start-gateway.js');
  let settings;
  try {
    settings = loadSettings(argv, process.env);
  } catch (err) {
    if (err instanceof SettingsError) {
      process.stderr.write(`sidegate: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  let gateway;
  try {
    const { createTelemetry } = await import('./telemetry/create-telemetry.js');
    const telemetry = createTelemetry({ env: process.env });
    gateway = await startGateway(settings, { telemetry, serviceName: telemetry.config.serviceName, propagators: telemetry.config.propagators });
  } catch (err) {
    // Startup problems (a bad master key, an unreadable keys file, a port in use) are one line.
    process.stderr.write(`sidegate: cannot start: ${err instanceof Error ? err.message : String(err)}\n`);
    return 2;
  }
  // A stray rejection is logged (type and message only) instead of taking every request down with it.
  process.on('unhandledRejection', (reason) => {
    process.stderr.write(`sidegate: unhandled rejection: ${reason instanceof Error ? `${reason.name}: ${reason.message}` : typeof reason}\n`);
  });
  process.stdout.write(`sidegate listening on ${gateway.url}\n`);
  if (settings.generatedApiKey) {
    // Printed once, to this terminal only; never logged anywhere else.
    process.stdout.write(`no SIDEGATE_API_KEYS configured; gateway key for this run: ${settings.apiKeys[0]}\n`);
  }
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      process.stderr.write(`sidegate: ${signal} received, draining\n`);
      void gateway.close().then(resolve);
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
  // The drain and the final flush are bounded; an export still waiting on a collector that never
  // answers (or any other stray handle) must not keep the process alive past them.
  setTimeout(() => process.exit(0), 0).unref();
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`sidegate: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
