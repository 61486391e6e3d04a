/**
 * Gemini stream chunks → OpenAI `chat.completion.chunk`s (issue 2 point 3; gemini-wire §4).
 * Pure and stateful per call, shaped like a TransformStream: `push` is `transform`, `finish` is
 * `flush`. The SSE writer in `server/` adds `data: [DONE]`.
 *
 * - the first delta of each choice carries `role`; `finish_reason` comes on a last, empty-delta
 *   chunk per choice, written by `finish()` (Gemini sends its finishReason on its last chunk);
 * - usage is cumulative on every Gemini chunk, so only the last is kept; with
 *   `stream_options.include_usage` exactly one usage chunk (empty `choices`) ends the stream;
 * - function calls arrive whole (no partial args on the Gemini API), so each becomes one complete
 *   `tool_calls` delta with a running index per choice; a call sharing a chunk with text is kept;
 * - an in-stream `{"error":…}` chunk throws `UpstreamError`, and a stream that ends without a
 *   finish reason throws too: a cut stream must never look like a clean finish;
 * - grounding citations go out as `delta.annotations` on the chunk that carried
 *   `groundingMetadata` (as OpenAI streams them), against the answer streamed so far: consecutive
 *   text deltas are taken as one part, as an SDK aggregating the stream sees them;
 * - `logprobsResult` on a chunk becomes that chunk's `logprobs`; the served tier is
 *   `service_tier` on every chunk once Gemini has named it.
 */
import { randomUUID } from 'node:crypto';
import { UpstreamError } from '../../errors.js';
import type {
  ChatCompletionChunk,
  ChatCompletionChunkDelta,
  CompletionUsage,
  FinishReason,
  ContentPartsEntry,
  UrlCitationAnnotation,
} from '../../openai/chat-response.js';
import type { CallOutcome, NormalizedUsage } from '../provider.js';
import { groundingAnnotations, type PartText } from './convert-grounding.js';
import { convertLogprobs } from './convert-logprobs.js';
import { convertParts } from './convert-parts.js';
import { AUDIO_EXPIRY_SECONDS, openAiServiceTier, parseWireResponse } from './convert-response.js';
import { convertUsage } from './convert-usage.js';
import { mapFinishReason } from './map-finish-reason.js';

export interface StreamTranslatorOptions {
  /** The model the client asked for. */
  model: string;
  strictCompliance: boolean;
  /** `stream_options.include_usage`. */
  includeUsage: boolean;
  idPrefix?: string;
  warnings?: string[];
  newId?: () => string;
  now?: () => number;
}

interface ChoiceState {
  roleSent: boolean;
  toolCalls: number;
  /** The content sent so far is non-empty and does not end a line. */
  openLine: boolean;
  geminiFinish: string | undefined;
  finished: boolean;
  /** A structured part (code, image) has been streamed: `content_parts` now follows every part. */
  structured: boolean;
  /**
   * Text entries seen before the first structured part (non-strict only). They are sent ahead of
   * it, so the `content_parts` a client accumulates is the whole answer in order, as in a
   * non-streamed answer; a text-only stream never carries `content_parts`, also as there.
   */
  textBeforeStructured: ContentPartsEntry[];
  /** Characters of `content` streamed so far. */
  sent: number;
  /** The streamed parts as an aggregating SDK sees them (consecutive text deltas merged), for citations. */
  partTexts: Array<PartText | undefined>;
  lastPartIsText: boolean;
  /** Citations already streamed (JSON), so a repeated groundingMetadata adds only new ones. */
  annotationsSent: Set<string>;
  /** Id of the streamed audio (TTS), once a chunk carried some. */
  audioId: string | undefined;
}

export class GeminiStreamTranslator {
  private readonly options: StreamTranslatorOptions;
  private readonly created: number;
  private id: string | undefined;
  private responseId: string | undefined;
  private responseModel: string | undefined;
  private usage: { usage: CompletionUsage; normalized: NormalizedUsage } | undefined;
  private readonly choices = new Map<number, ChoiceState>();
  private blocked = false;
  private finishReasons: FinishReason[] = [];
  private serviceTier: string | undefined;

  constructor(options: StreamTranslatorOptions) {
    this.options = options;
    this.created = Math.floor((options.now ?? Date.now)() / 1000);
  }

  private chunk(choices: ChatCompletionChunk['choices'], usage?: CompletionUsage | null): ChatCompletionChunk {
    return {
      id: this.id ?? `chatcmpl-${(this.options.newId ?? randomUUID)()}`,
      object: 'chat.completion.chunk',
      created: this.created,
      model: this.options.model,
      choices,
      ...(usage !== undefined ? { usage } : {}),
      ...(this.serviceTier ? { service_tier: this.serviceTier } : {}),
    };
  }

  /** Records this chunk's parts in the choice's aggregated part list and returns new citations. */
  private citations(
    s: ChoiceState,
    partTexts: ReadonlyArray<PartText | undefined>,
    content: string | undefined,
    metadata: unknown,
  ): UrlCitationAnnotation[] {
    for (const text of partTexts) {
      const last = s.partTexts[s.partTexts.length - 1];
      if (text && s.lastPartIsText && last) last.text += text.text;
      else s.partTexts.push(text ? { at: s.sent + text.at, text: text.text } : undefined);
      s.lastPartIsText = text !== undefined;
    }
    s.sent += content?.length ?? 0;
    if (metadata == null) return [];
    return groundingAnnotations(metadata, s.partTexts).filter((a) => {
      const key = JSON.stringify(a);
      if (s.annotationsSent.has(key)) return false;
      s.annotationsSent.add(key);
      return true;
    });
  }

  private state(index: number): ChoiceState {
    let s = this.choices.get(index);
    if (!s) {
      s = {
        roleSent: false,
        toolCalls: 0,
        openLine: false,
        geminiFinish: undefined,
        finished: false,
        structured: false,
        textBeforeStructured: [],
        sent: 0,
        partTexts: [],
        lastPartIsText: false,
        annotationsSent: new Set(),
        audioId: undefined,
      };
      this.choices.set(index, s);
    }
    return s;
  }

  /** Translates one parsed Gemini chunk (the JSON of one SSE `data:` line). */
  push(json: unknown): ChatCompletionChunk[] {
    const response = parseWireResponse(json);
    if (this.id === undefined) this.id = `chatcmpl-${response.responseId ?? (this.options.newId ?? randomUUID)()}`;
    if (response.responseId) this.responseId = response.responseId;
    if (response.modelVersion) this.responseModel = response.modelVersion;
    if (response.usageMetadata) this.usage = convertUsage(response.usageMetadata);
    this.serviceTier = openAiServiceTier(response.usageMetadata?.serviceTier) ?? this.serviceTier;

    const out: ChatCompletionChunk[] = [];
    const candidates = response.candidates ?? [];
    if (candidates.length === 0 && response.promptFeedback?.blockReason) {
      this.blocked = true;
      const s = this.state(0);
      if (!s.roleSent) {
        s.roleSent = true;
        const first = this.chunk([{ index: 0, delta: { role: 'assistant', content: null }, finish_reason: null, logprobs: null }]);
        // Non-strict: why the prompt was blocked (Gemini sends promptFeedback in the first chunk only).
        if (!this.options.strictCompliance) first.promptFeedback = response.promptFeedback;
        out.push(first);
      }
      return out;
    }
    const strict = this.options.strictCompliance;
    candidates.forEach((candidate, position) => {
      const index = candidate.index ?? position;
      const s = this.state(index);
      const parts = convertParts(candidate.content?.parts ?? [], {
        strictCompliance: strict,
        idPrefix: this.options.idPrefix ?? 'call',
        ...(this.options.newId ? { newId: this.options.newId } : {}),
        continuesLine: s.openLine,
      });
      if (parts.content !== undefined && parts.content !== '') s.openLine = !parts.content.endsWith('\n');
      const annotations = this.citations(s, parts.partTexts, parts.content, candidate.groundingMetadata);
      const delta: ChatCompletionChunkDelta = {};
      if (!s.roleSent) delta.role = 'assistant';
      if (parts.content !== undefined && (parts.content !== '' || !s.roleSent)) delta.content = parts.content;
      else if (!s.roleSent) delta.content = '';
      if (parts.toolCalls.length > 0) {
        delta.tool_calls = parts.toolCalls.map((call) => ({ index: s.toolCalls++, ...call }));
      }
      if (annotations.length > 0) delta.annotations = annotations;
      if (parts.audio) {
        // OpenAI streams pcm16 audio as `delta.audio {id, data}`; each chunk's PCM decodes alone.
        s.audioId ??= `audio_${(this.options.newId ?? randomUUID)().replaceAll('-', '')}`;
        const pcm = Buffer.concat(parts.audio.data.map((d) => Buffer.from(d, 'base64')));
        delta.audio = { id: s.audioId, data: pcm.toString('base64') };
      }
      if (!strict) {
        if (parts.contentBlocks.length > 0) delta.content_blocks = parts.contentBlocks;
        if (parts.structured || s.structured) {
          delta.content_parts = s.structured ? parts.contentParts : [...s.textBeforeStructured, ...parts.contentParts];
          s.structured = true;
          s.textBeforeStructured = [];
        } else {
          s.textBeforeStructured.push(...parts.contentParts);
        }
        if (parts.thoughtSignature) delta.thought_signature = parts.thoughtSignature;
      }
      const extras: { groundingMetadata?: unknown; urlContextMetadata?: unknown; safetyRatings?: unknown } = {};
      if (!strict && candidate.groundingMetadata != null) extras.groundingMetadata = candidate.groundingMetadata;
      if (!strict && candidate.urlContextMetadata != null) extras.urlContextMetadata = candidate.urlContextMetadata;
      if (!strict && candidate.safetyRatings != null) extras.safetyRatings = candidate.safetyRatings;
      const logprobs = convertLogprobs(candidate.logprobsResult) ?? null;
      if (Object.keys(delta).length > 0 || Object.keys(extras).length > 0 || logprobs) {
        s.roleSent = true;
        out.push(this.chunk([{ index, delta, finish_reason: null, logprobs, ...extras }]));
      }
      if (candidate.finishReason) s.geminiFinish = candidate.finishReason;
    });
    return out;
  }

  /** Ends the stream: the finish chunk of every choice, then the usage chunk when asked for. */
  finish(): ChatCompletionChunk[] {
    const out: ChatCompletionChunk[] = [];
    if (this.blocked) {
      this.finishReasons = ['content_filter'];
      out.push(this.chunk([{ index: 0, delta: {}, finish_reason: 'content_filter', logprobs: null }]));
    } else {
      const unfinished = this.choices.size === 0 || [...this.choices.values()].some((s) => s.geminiFinish === undefined);
      if (unfinished) {
        throw new UpstreamError('upstream stream ended before its final chunk', {
          status: 502,
          reason: 'stream_truncated',
        });
      }
      const indexes = [...this.choices.keys()].sort((a, b) => a - b);
      for (const index of indexes) {
        const s = this.choices.get(index)!;
        const reason = mapFinishReason(s.geminiFinish, s.toolCalls > 0);
        this.finishReasons.push(reason);
        s.finished = true;
        // "The final audio update contains only its expiry timestamp" (OpenAI), with the empty transcript.
        const delta: ChatCompletionChunkDelta = s.audioId
          ? { audio: { id: s.audioId, expires_at: this.created + AUDIO_EXPIRY_SECONDS, transcript: '' } }
          : {};
        out.push(this.chunk([{ index, delta, finish_reason: reason, logprobs: null }]));
      }
    }
    if (this.options.includeUsage) out.push(this.chunk([], this.usage?.usage ?? null));
    return out;
  }

  /** What telemetry records; complete once `finish()` ran. */
  outcome(): CallOutcome {
    return {
      responseModel: this.responseModel ?? this.options.model,
      finishReasons: [...this.finishReasons],
      warnings: this.options.warnings ?? [],
      ...(this.responseId ? { responseId: this.responseId } : {}),
      ...(this.usage ? { usage: this.usage.normalized } : {}),
    };
  }
}
