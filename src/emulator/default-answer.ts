// The deterministic answer the emulator gives when no reply is scripted. Pure: the same request
// and model always give the same parts and counts (responseId and signatures aside). Rules
// (summarised in index.ts):
//  - text: `Echo: <last user text>` where the last user content's text parts are joined by " " and
//    media parts appear as `[inlineData <mime>]` / `[fileData <mime> <uri>]`; after a function-response
//    turn: `Function results: <name> returned <json>; …`; with responseMimeType application/json the
//    text is `{"echo":"<last user text>"}`;
//  - function calls: declared functions whose name occurs in the last user text, in order of first
//    mention (a JSON object right after the name becomes `args`, else required properties get
//    placeholder values); mode ANY calls the first allowed function even when none is mentioned;
//  - computerUse: `open_web_browser` on the first turn, `type_text_at` on the second;
//  - codeExecution: text, executableCode, codeExecutionResult, text; googleSearch(Retrieval):
//    groundingMetadata (§8.2); includeThoughts: a thought part first; IMAGE modality: a 1×1 PNG;
//  - tokens: ceil(chars/4) for text, 258 per media input part, 1290 per generated image.

import type { WireContent, WireFunctionDeclaration, WirePart, WireRequest, WireSchemaLike } from './validate-request.js';
import { safetyFor, type SafetyRating } from './features/safety.js';
import { isTtsModel, PCM_MIME, pcmFor } from './features/speech.js';
import { urlContextFor } from './features/url-context.js';
import { isGemini3, isImageModel } from './models.js';

/** A 1×1 transparent PNG, the emulator's generated image. */
export const TINY_PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
export const IMAGE_OUTPUT_TOKENS = 1290;
export const MEDIA_INPUT_TOKENS = 258;

/** One response part as the emulator writes it (camelCase wire JSON). */
export type OutPart = Record<string, unknown>;

export interface AnswerCandidate {
  parts: OutPart[];
  finishReason: string;
  finishMessage?: string;
  groundingMetadata?: Record<string, unknown>;
  urlContextMetadata?: Record<string, unknown>;
  safetyRatings?: SafetyRating[];
}

export interface PromptCount {
  total: number;
  details: Array<{ modality: string; tokenCount: number }>;
}

export interface Answer {
  candidates: AnswerCandidate[];
  prompt: PromptCount;
  thoughtsTokens: number;
  /** True when Gemini 3 puts the text answer's signature on its last part (streams: a trailing chunk). */
  trailingSignature?: string;
  /** `responseLogprobs` was set: candidates carry `logprobsResult` with `top` alternatives per step. */
  logprobs?: { top: number | undefined };
  /** Prompt-side tool work (URL context retrievals), `toolUsePromptTokenCount`. */
  toolUsePromptTokens?: number;
  /** Tokens read from a context cache; part of `promptTokenCount` (set by the server after lookup). */
  cachedTokens?: number;
  /** The tier that served the call (lower-case), when the request named one. */
  serviceTier?: string;
  /** Set when the prompt was blocked (§3.2): then there are no candidates. */
  promptFeedback?: Record<string, unknown>;
}

export function tokensOf(chars: number): number {
  return Math.ceil(chars / 4);
}

function modalityOf(mime: string | undefined): string {
  if (!mime) return 'TEXT';
  if (mime.startsWith('image/')) return 'IMAGE';
  if (mime.startsWith('audio/')) return 'AUDIO';
  if (mime.startsWith('video/')) return 'VIDEO';
  if (mime === 'application/pdf') return 'DOCUMENT';
  return 'TEXT';
}

function partChars(p: WirePart): number {
  let n = 0;
  if (p.text !== undefined) n += p.text.length;
  if (p.functionCall) n += (p.functionCall.name ?? '').length + JSON.stringify(p.functionCall.args ?? {}).length;
  if (p.functionResponse) n += (p.functionResponse.name ?? '').length + JSON.stringify(p.functionResponse.response ?? {}).length;
  if (p.executableCode) n += (p.executableCode.code ?? '').length;
  if (p.codeExecutionResult) n += (p.codeExecutionResult.output ?? '').length;
  return n;
}

/** Prompt tokens: the same rule for generateContent usage and countTokens (§14.1). */
export function countPrompt(req: WireRequest): PromptCount {
  let chars = 0;
  const media = new Map<string, number>();
  const visit = (c: WireContent | undefined) => {
    for (const p of c?.parts ?? []) {
      chars += partChars(p);
      const mime = p.inlineData?.mimeType ?? p.fileData?.mimeType;
      if (p.inlineData || p.fileData) {
        const m = modalityOf(mime ?? 'video/*');
        media.set(m, (media.get(m) ?? 0) + MEDIA_INPUT_TOKENS);
      }
      for (const fr of (p.functionResponse?.parts ?? []) as Array<{ inlineData?: { mimeType?: string } }>) {
        const m = modalityOf(fr.inlineData?.mimeType);
        media.set(m, (media.get(m) ?? 0) + MEDIA_INPUT_TOKENS);
      }
    }
  };
  visit(req.systemInstruction);
  for (const c of req.contents ?? []) visit(c);
  const details: PromptCount['details'] = [];
  const text = tokensOf(chars);
  if (text > 0) details.push({ modality: 'TEXT', tokenCount: text + (media.get('TEXT') ?? 0) });
  for (const [modality, tokenCount] of media) if (modality !== 'TEXT' || text === 0) details.push({ modality, tokenCount });
  let total = 0;
  for (const d of details) total += d.tokenCount;
  return { total, details };
}

/** Text of the last user content (media as placeholders), or the function results it carries. */
function describeLastTurn(contents: WireContent[]): { userText: string; functionResults: boolean } {
  const last = contents[contents.length - 1];
  const parts = last?.parts ?? [];
  const responses = parts.filter((p) => p.functionResponse);
  if (last && last.role !== 'model' && responses.length > 0) {
    const text = responses.map((p) => `${p.functionResponse!.name ?? ''} returned ${JSON.stringify(p.functionResponse!.response ?? {})}`);
    return { userText: text.join('; '), functionResults: true };
  }
  const pieces: string[] = [];
  for (const p of parts) {
    if (p.thought) continue;
    if (p.text !== undefined) pieces.push(p.text);
    else if (p.inlineData) pieces.push(`[inlineData ${p.inlineData.mimeType ?? ''}]`);
    else if (p.fileData) pieces.push(`[fileData ${p.fileData.mimeType ?? ''} ${p.fileData.fileUri ?? ''}]`);
  }
  return { userText: pieces.join(' '), functionResults: false };
}

/** Scans a JSON object literal starting at `from` (which must be `{`); returns it parsed or undefined. */
function readJsonObject(text: string, from: number): Record<string, unknown> | undefined {
  let depth = 0;
  let inString = false;
  for (let i = from; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === '{') depth++;
    else if (ch === '}' && --depth === 0) {
      try {
        const v: unknown = JSON.parse(text.slice(from, i + 1));
        return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

function typeName(schema: WireSchemaLike | undefined): string {
  const t = (schema as { type?: unknown } | undefined)?.type;
  const one = Array.isArray(t) ? t.find((x) => x !== 'null') : t;
  return typeof one === 'string' ? one.toLowerCase() : '';
}

/** Placeholder values for the required properties of a declaration's parameter schema. */
function placeholderArgs(fd: WireFunctionDeclaration): Record<string, unknown> {
  const schema = (fd.parameters ?? fd.parametersJsonSchema) as WireSchemaLike | undefined;
  const args: Record<string, unknown> = {};
  if (!schema || typeof schema !== 'object') return args;
  for (const name of schema.required ?? []) {
    const prop = schema.properties?.[name];
    switch (typeName(prop)) {
      case 'string':
        args[name] = prop?.enum?.[0] ?? 'example';
        break;
      case 'number':
      case 'integer':
        args[name] = 1;
        break;
      case 'boolean':
        args[name] = true;
        break;
      case 'array':
        args[name] = [];
        break;
      default:
        args[name] = typeName(prop) === 'object' ? {} : 'example';
    }
  }
  return args;
}

const SPACE_OR_PAREN = new Set([' ', '(', ':', '\t']);
const HTML_SPECIAL = /[<>&]/g;

function argsFor(fd: WireFunctionDeclaration, text: string, at: number): Record<string, unknown> {
  let i = at + (fd.name ?? '').length;
  while (i < text.length && SPACE_OR_PAREN.has(text[i]!)) i++;
  if (text[i] === '{') {
    const parsed = readJsonObject(text, i);
    if (parsed) return parsed;
  }
  return placeholderArgs(fd);
}

function chooseFunctionCalls(req: WireRequest, userText: string, functionResults: boolean): OutPart[] {
  const fcc = req.toolConfig?.functionCallingConfig;
  const mode = fcc?.mode ?? 'AUTO';
  if (mode === 'NONE') return [];
  let decls: WireFunctionDeclaration[] = [];
  for (const t of req.tools ?? []) decls = decls.concat(t.functionDeclarations ?? []);
  const allowed = fcc?.allowedFunctionNames;
  if (allowed && allowed.length > 0 && (mode === 'ANY' || mode === 'VALIDATED')) decls = decls.filter((d) => allowed.includes(d.name ?? ''));
  const calls: OutPart[] = [];
  if (!functionResults) {
    const mentioned = decls
      .map((d) => ({ d, at: d.name ? userText.indexOf(d.name) : -1 }))
      .filter((m) => m.at >= 0)
      .sort((a, b) => a.at - b.at);
    for (const m of mentioned) calls.push({ functionCall: { name: m.d.name, args: argsFor(m.d, userText, m.at) } });
  }
  if (calls.length === 0 && mode === 'ANY' && decls[0]) {
    calls.push({ functionCall: { name: decls[0].name, args: placeholderArgs(decls[0]) } });
  }
  if (calls.length > 0) return calls;

  // Computer use (§9.3): a predefined action per step while the task "runs".
  const cu = req.tools?.find((t) => t.computerUse)?.computerUse;
  if (cu) {
    const contents = req.contents ?? [];
    const modelTurns = contents.filter((c) => c.role === 'model').length;
    const firstUser = contents.find((c) => c.role !== 'model')?.parts?.find((p) => p.text !== undefined)?.text ?? '';
    const excluded = new Set(cu.excludedPredefinedFunctions ?? []);
    const steps: OutPart[] = [
      { functionCall: { name: 'open_web_browser', args: {} } },
      {
        functionCall: {
          name: 'type_text_at',
          args: { x: 500, y: 500, text: firstUser, press_enter: true, clear_before_typing: true },
        },
      },
    ].filter((s) => !excluded.has((s.functionCall as { name: string }).name));
    const step = steps[modelTurns];
    if (step) return [step];
  }
  return [];
}

function applyStops(text: string, stops: string[] | undefined): string {
  let cut = text.length;
  for (const s of stops ?? []) {
    const i = s ? text.indexOf(s) : -1;
    if (i >= 0 && i < cut) cut = i;
  }
  return text.slice(0, cut);
}

function signature(responseId: string, n: number): string {
  return Buffer.from(`sidegate-emulator-signature:${responseId}:${n}`).toString('base64');
}

/** The default answer to a validated request. */
export function buildDefaultAnswer(req: WireRequest, model: string, responseId: string): Answer {
  const gc = req.generationConfig ?? {};
  const contents = req.contents ?? [];
  const { userText, functionResults } = describeLastTurn(contents);
  const g3 = isGemini3(model);
  const prompt = countPrompt(req);

  const tc = gc.thinkingConfig;
  const thoughtText = `**Considering the request**\nThe user wrote: ${userText.slice(0, 200)}`;
  // thinkingBudget 0 turns thinking off (§2.6): no thought parts even with includeThoughts.
  const thinks =
    tc !== undefined &&
    tc.thinkingBudget !== 0 &&
    (tc.includeThoughts === true || (tc.thinkingBudget ?? 0) > 0 || tc.thinkingLevel !== undefined);
  let thoughtsTokens = thinks ? tokensOf(thoughtText.length) : 0;
  if (thinks && tc?.thinkingBudget !== undefined && tc.thinkingBudget > 0) thoughtsTokens = Math.min(thoughtsTokens, tc.thinkingBudget);
  const lead: OutPart[] = thinks && tc?.includeThoughts ? [{ text: thoughtText, thought: true }] : [];

  const safety = safetyFor(req.safetySettings, userText);
  if (safety.promptFeedback) return { candidates: [], prompt, thoughtsTokens: 0, promptFeedback: safety.promptFeedback };
  const calls = chooseFunctionCalls(req, userText, functionResults);
  const urlContext = (req.tools ?? []).some((t) => t.urlContext) && !functionResults ? urlContextFor(userText) : undefined;
  const n = Math.max(1, gc.candidateCount ?? 1);
  const candidates: AnswerCandidate[] = [];
  let trailingSignature: string | undefined;

  for (let i = 0; i < n; i++) {
    if (calls.length > 0) {
      const parts = [...lead, ...calls.map((c) => ({ ...c }))];
      if (g3) parts[lead.length] = { ...parts[lead.length], thoughtSignature: signature(responseId, i) };
      candidates.push({ parts, finishReason: 'STOP', finishMessage: 'Model generated function call(s).' });
      continue;
    }

    let answer = functionResults ? `Function results: ${userText}` : `Echo: ${userText}`;
    if (gc.responseMimeType === 'application/json') answer = JSON.stringify({ echo: userText });
    answer = applyStops(answer, gc.stopSequences);
    let finishReason = 'STOP';
    const budget = gc.maxOutputTokens;
    if (budget !== undefined) {
      const left = budget - thoughtsTokens;
      if (left <= 0) {
        // §3.1: budget spent while thinking → MAX_TOKENS with no parts.
        candidates.push({ parts: [], finishReason: 'MAX_TOKENS' });
        continue;
      }
      if (tokensOf(answer.length) > left) {
        answer = answer.slice(0, left * 4);
        finishReason = 'MAX_TOKENS';
      }
    }

    const parts: OutPart[] = [...lead];
    const tools = req.tools ?? [];
    if (tools.some((t) => t.codeExecution)) {
      const subject = functionResults ? answer : userText;
      parts.push(
        { text: 'Let me run some code for that.' },
        { executableCode: { language: 'PYTHON', code: `print(${JSON.stringify(subject)})` } },
        { codeExecutionResult: { outcome: 'OUTCOME_OK', output: `${subject}\n` } },
      );
    }
    const modalities = gc.responseModalities ?? [];
    if (isTtsModel(model)) {
      // TTS: the last user text, spoken (features/speech.ts); no text part.
      candidates.push({ parts: [{ inlineData: { mimeType: PCM_MIME, data: pcmFor(userText).data } }], finishReason: 'STOP' });
      continue;
    }
    const imageOnly = modalities.length === 1 && modalities[0] === 'IMAGE';
    if (!imageOnly) parts.push({ text: answer });
    if (modalities.includes('IMAGE') && isImageModel(model)) {
      const img: OutPart = { inlineData: { mimeType: 'image/png', data: TINY_PNG_BASE64 } };
      if (g3) img.thoughtSignature = signature(responseId, 100 + i);
      parts.push(img);
    }
    if (g3 && i === 0 && !parts[parts.length - 1]!.thoughtSignature) trailingSignature = signature(responseId, i);
    const cand: AnswerCandidate = { parts, finishReason };
    const search = tools.find((t) => t.googleSearch || t.googleSearchRetrieval);
    const answerPart = parts.findIndex((p) => p.text === answer && p.thought === undefined);
    if (search && answerPart >= 0) cand.groundingMetadata = groundingFor(userText, answer, answerPart, search.googleSearchRetrieval !== undefined);
    if (urlContext) cand.urlContextMetadata = urlContext.urlContextMetadata;
    if (safety.ratings) cand.safetyRatings = safety.ratings;
    candidates.push(cand);
  }
  const out: Answer = { candidates, prompt, thoughtsTokens };
  if (trailingSignature) out.trailingSignature = trailingSignature;
  if (gc.responseLogprobs === true) out.logprobs = { top: gc.logprobs };
  if (urlContext && urlContext.toolUsePromptTokens > 0) out.toolUsePromptTokens = urlContext.toolUsePromptTokens;
  if (req.serviceTier !== undefined && req.serviceTier !== 'UNSPECIFIED') out.serviceTier = req.serviceTier.toLowerCase();
  return out;
}

/** §8.2 shape; segment offsets are byte offsets into the answer part, `partIndex` its place among the parts. */
function groundingFor(query: string, answer: string, partIndex: number, legacy: boolean): Record<string, unknown> {
  const g: Record<string, unknown> = {
    webSearchQueries: [query],
    searchEntryPoint: { renderedContent: `<div class="emulator-search">${query.replace(HTML_SPECIAL, '')}</div>` },
    groundingChunks: [
      { web: { uri: 'https://vertexaisearch.cloud.google.com/grounding-api-redirect/emulator-0', title: 'example.com' } },
      { web: { uri: 'https://vertexaisearch.cloud.google.com/grounding-api-redirect/emulator-1', title: 'example.org' } },
    ],
    groundingSupports: [
      {
        segment: { partIndex, startIndex: 0, endIndex: Buffer.byteLength(answer), text: answer },
        groundingChunkIndices: [0, 1],
        confidenceScores: [0.97, 0.81],
      },
    ],
  };
  if (legacy) g.retrievalMetadata = { googleSearchDynamicRetrievalScore: 0.8 };
  return g;
}

/**
 * Tokens of a candidate's non-thought output, for usage: ceil(chars/4) text, 1290 per image,
 * and 25 per second of 24 kHz 16-bit audio (features/speech.ts).
 */
export function outputTokens(parts: OutPart[]): { text: number; image: number; audio: number } {
  let chars = 0;
  let image = 0;
  let audioBytes = 0;
  for (const p of parts) {
    if (p.thought === true) continue;
    chars += partChars(p as WirePart);
    const blob = p.inlineData as { mimeType?: string; data?: string } | undefined;
    if (blob?.mimeType?.startsWith('audio/')) audioBytes += Buffer.byteLength(blob.data ?? '', 'base64');
    else if (blob) image += IMAGE_OUTPUT_TOKENS;
  }
  return { text: tokensOf(chars), image, audio: Math.ceil((audioBytes / 2 / 24_000) * 25) };
}
