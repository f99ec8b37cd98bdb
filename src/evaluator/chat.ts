/**
 * The chat-completions adapter: one request per question, all at once, so
 * no answer sees another (docs/processes.md "What the evaluator sees"). Speaks the OpenAI-compatible API that
 * hosted providers and local servers (llama.cpp, Ollama, vLLM) share.
 */
import { randomBytes } from 'node:crypto';
import type { CheckAnswer, CheckRequest } from '../engine/check.js';
import { chatMessages, fenceTag, parseReply } from './prompt.js';

export interface ChatConfig {
  url: string;
  model: string;
  apiKeyEnv?: string;
  /** Ask for a JSON object reply (`response_format`); some servers refuse the field. */
  jsonMode: boolean;
}

/** The most of a reply body read; a chat answer here is a few dozen bytes. */
const MAX_REPLY_BYTES = 1024 * 1024;

export async function askChat(cfg: ChatConfig, request: CheckRequest, signal: AbortSignal, env: NodeJS.ProcessEnv = process.env): Promise<{ model: string; answers: CheckAnswer[] }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (cfg.apiKeyEnv) {
    const key = env[cfg.apiKeyEnv];
    if (!key) throw new Error(`the environment variable ${cfg.apiKeyEnv} (evaluator.chat.apiKeyEnv) is not set`);
    headers.authorization = `Bearer ${key}`;
  }
  const endpoint = `${cfg.url.replace(/\/+$/, '')}/chat/completions`;
  const tag = fenceTag(request, () => randomBytes(8).toString('hex'));
  const replies = await Promise.all(
    request.questions.map(async (q, i) => {
      const res = await fetch(endpoint, {
        method: 'POST',
        headers,
        signal,
        body: JSON.stringify({ model: cfg.model, messages: chatMessages(request, i, tag), temperature: 0, ...(cfg.jsonMode ? { response_format: { type: 'json_object' } } : {}) }),
      });
      const body = await res.text();
      if (body.length > MAX_REPLY_BYTES) throw new Error(`the evaluator's reply is over ${MAX_REPLY_BYTES} bytes`);
      if (!res.ok) throw new Error(`the evaluator answered HTTP ${res.status}: ${body.slice(0, 200)}`);
      let json: { model?: unknown; choices?: { message?: { content?: unknown } }[] };
      try {
        json = JSON.parse(body) as typeof json;
      } catch {
        throw new Error(`the evaluator's reply is not JSON: ${body.slice(0, 120)}`);
      }
      const content = json.choices?.[0]?.message?.content;
      if (typeof content !== 'string') throw new Error("the evaluator's reply has no choices[0].message.content");
      const parsed = parseReply(q, content);
      if (!parsed.ok) throw new Error(`question ${i + 1}: ${parsed.problem}`);
      return { model: typeof json.model === 'string' && json.model !== '' ? json.model : cfg.model, answer: parsed.answer };
    }),
  );
  return { model: replies[0]?.model ?? cfg.model, answers: replies.map((r) => r.answer) };
}
