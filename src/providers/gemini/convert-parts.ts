/**
 * One Gemini candidate's parts → the pieces of an OpenAI message or delta (gemini-wire §3, §3.4,
 * §6, §8.1, §10; DESIGN Decision 9). Pure; shared by the response converter and the stream
 * translator so both read parts the same way.
 *
 * - thought parts never reach `content`; they become `content_blocks` (non-strict);
 * - code execution appears in `content` as fenced blocks in part order (so a strict client sees
 *   it) and as structured `content_parts` entries (non-strict);
 * - a signature on a function call → `function.thought_signature`; on a text answer →
 *   `thought_signature` of the message (non-strict); never invented, reordered or dropped.
 */
import { randomUUID } from 'node:crypto';
import type { ChatCompletionToolCall, ContentBlock, ContentPartsEntry } from '../../openai/chat-response.js';
import type { PartText } from './convert-grounding.js';
import type { WirePart } from './wire-schemas.js';

export interface ConvertedParts {
  /** Answer text, or undefined when the parts held none. */
  content: string | undefined;
  toolCalls: ChatCompletionToolCall[];
  contentParts: ContentPartsEntry[];
  contentBlocks: ContentBlock[];
  /** Signature of a text/media part (Gemini 3 puts a text answer's signature on its last part). */
  thoughtSignature: string | undefined;
  /** True when a part had no OpenAI string form (image, code): `content_parts` carries it. */
  structured: boolean;
  /** Per input part: where its answer text begins in `content` (undefined for other parts), for citations. */
  partTexts: Array<PartText | undefined>;
  /** Audio parts (TTS): their MIME type and base64 data, in order; they never reach `content_parts`. */
  audio: { mimeType: string; data: string[] } | undefined;
}

export interface PartsOptions {
  strictCompliance: boolean;
  /** Tool-call id prefix (Decision 9: `call`). */
  idPrefix: string;
  /** Id generator, injectable for tests. */
  newId?: () => string;
  /**
   * True when text already sent for this choice (an earlier stream chunk) does not end a line, so
   * a fenced block that opens these parts must start on a new line, as it would non-streamed.
   */
  continuesLine?: boolean;
}

function fence(language: string, body: string): string {
  return `\`\`\`${language}\n${body.endsWith('\n') ? body : `${body}\n`}\`\`\`\n`;
}

export function convertParts(parts: readonly WirePart[], options: PartsOptions): ConvertedParts {
  const newId = options.newId ?? randomUUID;
  let content: string | undefined;
  const toolCalls: ChatCompletionToolCall[] = [];
  const contentParts: ContentPartsEntry[] = [];
  const contentBlocks: ContentBlock[] = [];
  let thoughtSignature: string | undefined;
  let structured = false;
  const partTexts: Array<PartText | undefined> = [];
  let audio: ConvertedParts['audio'];
  const append = (text: string): void => {
    content = (content ?? '') + text;
  };
  // Text that follows a fenced block starts on its own line.
  const appendAfterBlock = (text: string): void => {
    if (content === undefined || content === '') {
      if (options.continuesLine) append('\n');
    } else if (!content.endsWith('\n')) append('\n');
    append(text);
  };

  for (const part of parts) {
    partTexts.push(part.text != null && !part.thought ? { at: (content ?? '').length, text: part.text } : undefined);
    const signature = part.thoughtSignature ?? undefined;
    if (part.thought) {
      contentBlocks.push({ type: 'thinking', thinking: part.text ?? '', ...(signature ? { signature } : {}) });
      continue;
    }
    if (part.functionCall) {
      toolCalls.push({
        id: `${options.idPrefix}-${newId()}`,
        type: 'function',
        function: {
          name: part.functionCall.name ?? '',
          arguments: JSON.stringify(part.functionCall.args ?? {}),
          ...(signature && !options.strictCompliance ? { thought_signature: signature } : {}),
        },
      });
      continue;
    }
    if (part.executableCode) {
      const language = (part.executableCode.language ?? 'PYTHON').toLowerCase();
      const code = part.executableCode.code ?? '';
      appendAfterBlock(fence(language === 'language_unspecified' ? '' : language, code));
      contentParts.push({ type: 'executable_code', language, code });
      structured = true;
    } else if (part.codeExecutionResult) {
      const outcome = part.codeExecutionResult.outcome ?? 'OUTCOME_OK';
      const output = part.codeExecutionResult.output ?? '';
      appendAfterBlock(fence('', output));
      contentParts.push({ type: 'code_execution_result', outcome, output });
      structured = true;
    } else if (part.inlineData?.mimeType?.startsWith('audio/')) {
      audio ??= { mimeType: part.inlineData.mimeType, data: [] };
      audio.data.push(part.inlineData.data ?? '');
    } else if (part.inlineData) {
      const url = `data:${part.inlineData.mimeType ?? 'application/octet-stream'};base64,${part.inlineData.data ?? ''}`;
      contentParts.push({ type: 'image', image_url: { url }, ...(signature ? { thought_signature: signature } : {}) });
      structured = true;
    } else if (part.text != null) {
      if (part.text !== '' || content === undefined) append(part.text);
      if (part.text !== '' || signature) {
        contentParts.push({ type: 'text', text: part.text, ...(signature ? { thought_signature: signature } : {}) });
      }
    }
    if (signature) thoughtSignature = signature;
  }
  return { content, toolCalls, contentParts, contentBlocks, thoughtSignature, structured, partTexts, audio };
}
