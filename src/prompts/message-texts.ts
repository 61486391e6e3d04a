/**
 * The strings of a prompt's messages that are templates: message text and image URLs. Pure;
 * one walk shared by loading (to collect and check them) and rendering (to replace them), so
 * the two can never disagree about which strings are rendered.
 */
import type { ChatMessage } from '../openai/chat-request.js';

export type TextKind = 'text' | 'image_url';

/** Returns new messages with each template string replaced by `fn`'s answer; never mutates. */
export function mapMessageTexts(
  messages: readonly ChatMessage[],
  fn: (text: string, path: string, kind: TextKind) => string,
): ChatMessage[] {
  return messages.map((message, i) => {
    if (!('content' in message)) return message;
    const content = message.content;
    if (typeof content === 'string') return { ...message, content: fn(content, `messages[${i}].content`, 'text') } as ChatMessage;
    if (!Array.isArray(content)) return message;
    const parts = content.map((part, j) => {
      if (part.type === 'text') return { ...part, text: fn(part.text, `messages[${i}].content[${j}].text`, 'text') };
      if (part.type === 'image_url') {
        return { ...part, image_url: { ...part.image_url, url: fn(part.image_url.url, `messages[${i}].content[${j}].image_url.url`, 'image_url') } };
      }
      return part;
    });
    return { ...message, content: parts } as ChatMessage;
  });
}

/** Every template string with its JSON path, in message order. */
export function listMessageTexts(messages: readonly ChatMessage[]): Array<{ path: string; text: string; kind: TextKind }> {
  const out: Array<{ path: string; text: string; kind: TextKind }> = [];
  mapMessageTexts(messages, (text, path, kind) => {
    out.push({ path, text, kind });
    return text;
  });
  return out;
}
