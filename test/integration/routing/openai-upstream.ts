/**
 * A small OpenAI-compatible upstream for routing tests (the second provider a fallback can go
 * to): `POST /v1/chat/completions`, JSON or SSE, with queued replies to script faults. Records
 * every request it got. Written from the OpenAI wire format alone; shares no code with
 * `src/providers/openai`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface UpstreamRequest {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
}

export type UpstreamReply =
  | { status: number; body: unknown; headers?: Record<string, string> }
  | { delayMs: number }
  | { drop: true };

export interface OpenAIUpstream {
  url: string;
  requests: UpstreamRequest[];
  enqueue(...replies: UpstreamReply[]): void;
  reset(): void;
  close(): Promise<void>;
}

export const UPSTREAM_TEXT = 'Hello from the OpenAI-compatible upstream.';

export async function startOpenAIUpstream(): Promise<OpenAIUpstream> {
  const requests: UpstreamRequest[] = [];
  let queue: UpstreamReply[] = [];

  const server = createServer((req, res) => void handle(req, res));
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
    } catch {
      // recorded as {}
    }
    requests.push({ path: req.url ?? '', headers: req.headers, body });
    const reply = queue.shift();
    if (reply && 'drop' in reply) {
      req.socket.destroy();
      return;
    }
    if (reply && 'delayMs' in reply) await new Promise((r) => setTimeout(r, reply.delayMs));
    if (res.destroyed) return;
    if (reply && 'status' in reply) {
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
      res.end(JSON.stringify(reply.body));
      return;
    }
    const model = String(body.model ?? 'unknown');
    if (body.stream === true) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const words = UPSTREAM_TEXT.split(' ');
      words.forEach((w, i) => {
        const delta = { content: i === 0 ? w : ` ${w}` };
        res.write(`data: ${JSON.stringify({ id: 'chatcmpl-up', object: 'chat.completion.chunk', created: 1, model, choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`);
      });
      res.write(`data: ${JSON.stringify({ id: 'chatcmpl-up', object: 'chat.completion.chunk', created: 1, model, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`);
      res.end('data: [DONE]\n\n');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: 'chatcmpl-up',
        object: 'chat.completion',
        created: 1,
        model,
        choices: [{ index: 0, message: { role: 'assistant', content: UPSTREAM_TEXT }, finish_reason: 'stop', logprobs: null }],
        usage: { prompt_tokens: 5, completion_tokens: 8, total_tokens: 13 },
      }),
    );
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    enqueue: (...replies) => void queue.push(...replies),
    reset() {
      requests.length = 0;
      queue = [];
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
