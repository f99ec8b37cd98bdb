/**
 * A real HTTP server on loopback that speaks the chat-completions API
 * (POST /v1/chat/completions) and answers from a script, so check-1 is
 * tested against the wire format a hosted or local model server uses.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ChatRequest {
  headers: http.IncomingHttpHeaders;
  body: { model: string; messages: { role: string; content: string }[]; temperature?: number; response_format?: unknown };
  /** The question, read back from the user message. */
  question: string;
}

/** What the script answers: a reply's content, a raw HTTP reply, or a delay before answering. */
export type Reply = { content: string; model?: string } | { status: number; raw: string } | { delayMs: number; then: Reply };

export class ChatServer {
  readonly requests: ChatRequest[] = [];
  script: (req: ChatRequest) => Reply = () => ({ content: '{"yes": 1}' });
  private readonly open = new Set<http.ServerResponse>();

  private constructor(private readonly server: http.Server) {}

  static async start(): Promise<ChatServer> {
    const server = http.createServer();
    const s = new ChatServer(server);
    server.on('request', (req, res) => void s.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return s;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res.writeHead(404).end('not found');
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequest['body'];
    const user = body.messages.find((m) => m.role === 'user')?.content ?? '';
    const request = { headers: req.headers, body, question: user.slice(user.lastIndexOf('Question: ') + 'Question: '.length) };
    this.requests.push(request);
    this.open.add(res);
    res.on('close', () => this.open.delete(res));
    await this.send(res, this.script(request), body.model);
  }

  private async send(res: http.ServerResponse, reply: Reply, model: string): Promise<void> {
    if ('delayMs' in reply) {
      await new Promise((r) => setTimeout(r, reply.delayMs));
      if (res.destroyed) return;
      return this.send(res, reply.then, model);
    }
    if ('raw' in reply) {
      res.writeHead(reply.status, { 'content-type': 'application/json' }).end(reply.raw);
      return;
    }
    const completion = {
      id: `chatcmpl-${this.requests.length}`,
      object: 'chat.completion',
      model: reply.model ?? `${model}-served`,
      choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: reply.content } }],
    };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(completion));
  }

  async close(): Promise<void> {
    for (const r of this.open) r.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** Answers by question text: the first entry whose key the question starts with. */
export function byQuestion(answers: Record<string, Reply>, fallback: Reply = { content: '{"yes": 1}' }): (req: ChatRequest) => Reply {
  return (req) => Object.entries(answers).find(([k]) => req.question.startsWith(k))?.[1] ?? fallback;
}
