/** `server.address` / `server.port` of an upstream base URL (semconv HTTP client attributes). */

/** Base URLs are few (one per configured upstream): parse each once, not once per attempt. */
const servers = new Map<string, { address?: string; port?: number }>();

export function serverOf(baseUrl: string): { address?: string; port?: number } {
  let server = servers.get(baseUrl);
  if (server === undefined) {
    server = parseServer(baseUrl);
    if (servers.size >= 256) servers.clear();
    servers.set(baseUrl, server);
  }
  return server;
}

function parseServer(baseUrl: string): { address?: string; port?: number } {
  try {
    const url = new URL(baseUrl);
    const port = url.port !== '' ? Number(url.port) : url.protocol === 'https:' ? 443 : url.protocol === 'http:' ? 80 : undefined;
    return { address: url.hostname.replace(/^\[|\]$/g, ''), ...(port !== undefined ? { port } : {}) };
  } catch {
    return {};
  }
}
