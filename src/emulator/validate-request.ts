// Request validation of gemini-wire.md §16.3–4: proto-JSON parsing (proto-schema.ts), then the
// semantic checks the live API makes: part oneof, turn order (§5), Gemini 3 thought signatures
// (§6.2–6.4), tool combinations (§8.4), thinking and modality settings (§2.5–2.6), file references
// (§13). Pure apart from the injected file lookup; one call per request.

import { badRequestError, googleError, type FieldViolation, type GoogleErrorBody } from './errors.js';
import { checkModelSupport } from './features/model-support.js';
import { checkSafetySettings } from './features/safety.js';
import { checkSpeech } from './features/speech.js';
import { isGemini3, isImageModel, isThinkingModel } from './models.js';
import { parseMessage } from './proto-schema.js';

/** The camelCase view of a parsed request the emulator reads (its own types, see DESIGN: no sharing). */
export interface WirePart {
  text?: string;
  thought?: boolean;
  thoughtSignature?: string;
  inlineData?: { mimeType?: string; data?: string };
  fileData?: { mimeType?: string; fileUri?: string };
  functionCall?: { id?: string; name?: string; args?: Record<string, unknown> };
  functionResponse?: { id?: string; name?: string; response?: Record<string, unknown>; parts?: unknown[] };
  executableCode?: { language?: string; code?: string };
  codeExecutionResult?: { outcome?: string; output?: string };
  toolCall?: unknown;
  toolResponse?: unknown;
}
export interface WireContent {
  role?: string;
  parts?: WirePart[];
}
export interface WireSchemaLike {
  type?: string;
  enum?: string[];
  properties?: Record<string, WireSchemaLike>;
  required?: string[];
}
export interface WireFunctionDeclaration {
  name?: string;
  description?: string;
  parameters?: WireSchemaLike;
  parametersJsonSchema?: unknown;
  response?: unknown;
  responseJsonSchema?: unknown;
}
export interface WireTool {
  functionDeclarations?: WireFunctionDeclaration[];
  googleSearch?: object;
  googleSearchRetrieval?: object;
  codeExecution?: object;
  urlContext?: object;
  googleMaps?: object;
  fileSearch?: object;
  computerUse?: { environment?: string; excludedPredefinedFunctions?: string[] };
  mcpServers?: unknown[];
}
export interface WireGenerationConfig {
  candidateCount?: number;
  stopSequences?: string[];
  maxOutputTokens?: number;
  responseSchema?: unknown;
  responseJsonSchema?: unknown;
  responseMimeType?: string;
  responseModalities?: string[];
  thinkingConfig?: { includeThoughts?: boolean; thinkingBudget?: number; thinkingLevel?: string };
  speechConfig?: Record<string, unknown>;
  seed?: number;
  responseLogprobs?: boolean;
  logprobs?: number;
}
export interface WireRequest {
  contents?: WireContent[];
  systemInstruction?: WireContent;
  tools?: WireTool[];
  toolConfig?: {
    functionCallingConfig?: { mode?: string; allowedFunctionNames?: string[] };
    includeServerSideToolInvocations?: boolean;
  };
  generationConfig?: WireGenerationConfig;
  safetySettings?: Array<{ category?: string; threshold?: string }>;
  cachedContent?: string;
  /** Upper-cased by the proto parser (STANDARD, FLEX, PRIORITY). */
  serviceTier?: string;
}

/** State of an uploaded file, as the validator needs it. */
export type FileLookup = (id: string) => 'PROCESSING' | 'ACTIVE' | 'FAILED' | undefined;

export type Validated<T> = { ok: true; value: T } | { ok: false; error: GoogleErrorBody };

const DATA_FIELDS = [
  'text',
  'inlineData',
  'fileData',
  'functionCall',
  'functionResponse',
  'executableCode',
  'codeExecutionResult',
  'toolCall',
  'toolResponse',
] as const;
const DATA_SNAKE: Record<string, string> = {
  text: 'text',
  inlineData: 'inline_data',
  fileData: 'file_data',
  functionCall: 'function_call',
  functionResponse: 'function_response',
  executableCode: 'executable_code',
  codeExecutionResult: 'code_execution_result',
  toolCall: 'tool_call',
  toolResponse: 'tool_response',
};
const VALID_ROLES = new Set(['user', 'model', 'function', '']);
const BUILTIN_TOOLS = ['googleSearch', 'googleSearchRetrieval', 'codeExecution', 'urlContext', 'googleMaps', 'fileSearch'] as const;
const FILE_PATH = /\/v1beta\/files\/([a-z0-9-]+)$/;

const fail = (error: GoogleErrorBody): { ok: false; error: GoogleErrorBody } => ({ ok: false, error });
/** Google's "precondition" style texts: `* GenerateContentRequest.<field>: <text>\n`. */
const starred = (field: string, text: string) =>
  fail(badRequestError([{ field, description: `* GenerateContentRequest.${field}: ${text}\n` }]));

/** Parses and validates a `generateContent` / `streamGenerateContent` (`stream`) body for `model`. */
export function validateGenerateRequest(body: unknown, model: string, files: FileLookup, stream = false): Validated<WireRequest> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return fail(googleError(400, `Invalid JSON payload received. Expected an object, got ${Array.isArray(body) ? 'a list' : typeof body}.`));
  }
  const violations: FieldViolation[] = [];
  const req = parseMessage('GenerateContentRequest', body as Record<string, unknown>, '', violations) as WireRequest;
  if (violations.length > 0) return fail(badRequestError(violations));
  const semantic = checkSemantics(req, model, files);
  if (semantic) return semantic;
  const speech = checkSpeech(req, model, stream);
  return speech ? fail(speech) : { ok: true, value: req };
}

/** Parses a `countTokens` body: `{contents}` or `{generateContentRequest}` (§14.1), never both. */
export function validateCountTokensRequest(body: unknown, model: string, files: FileLookup): Validated<WireRequest> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return fail(googleError(400, 'Invalid JSON payload received. Expected an object.'));
  }
  const violations: FieldViolation[] = [];
  const req = parseMessage('CountTokensRequest', body as Record<string, unknown>, '', violations) as {
    contents?: WireContent[];
    generateContentRequest?: WireRequest;
  };
  if (violations.length > 0) return fail(badRequestError(violations));
  if (req.contents !== undefined && req.generateContentRequest !== undefined) {
    return fail(googleError(400, 'contents and generate_content_request cannot both be set.'));
  }
  const inner: WireRequest = req.generateContentRequest ?? { contents: req.contents ?? [] };
  const partsError = checkParts(inner, files);
  return partsError ?? { ok: true, value: inner };
}

function checkParts(req: WireRequest, files: FileLookup): { ok: false; error: GoogleErrorBody } | null {
  const contents = req.contents ?? [];
  for (let i = 0; i < contents.length; i++) {
    const c = contents[i]!;
    if (c.role !== undefined && !VALID_ROLES.has(c.role)) {
      return fail(googleError(400, 'Please use a valid role: user, model.'));
    }
    const parts = c.parts ?? [];
    if (parts.length === 0) return starred(`contents[${i}].parts`, 'contents.parts must not be empty.');
    const err = checkPartList(parts, `contents[${i}]`, files);
    if (err) return err;
  }
  if (req.systemInstruction?.parts) {
    const err = checkPartList(req.systemInstruction.parts, 'system_instruction', files);
    if (err) return err;
  }
  return null;
}

function checkPartList(parts: WirePart[], loc: string, files: FileLookup): { ok: false; error: GoogleErrorBody } | null {
  for (let j = 0; j < parts.length; j++) {
    const p = parts[j]! as Record<string, unknown>;
    let first: string | undefined;
    for (const f of DATA_FIELDS) {
      if (p[f] === undefined) continue;
      if (first !== undefined) {
        const at = `${loc}.parts[${j}]`;
        return fail(
          badRequestError([{ field: at, description: `Invalid value at '${at}' (oneof), oneof field 'data' is already set. Cannot set '${DATA_SNAKE[f]}'` }]),
        );
      }
      first = f;
    }
    if (first === undefined) {
      return starred(`${loc}.parts[${j}].data`, "required oneof field 'data' must have one initialized field");
    }
    const uri = (p as WirePart).fileData?.fileUri;
    if (uri !== undefined) {
      const m = FILE_PATH.exec(uri);
      if (m) {
        const state = files(m[1]!);
        if (state === undefined) {
          return fail(googleError(403, `You do not have permission to access the File ${m[1]} or it may not exist.`));
        }
        if (state !== 'ACTIVE') {
          return fail(
            googleError(400, `The File ${m[1]} is not in an ACTIVE state and usage is not allowed.`, { status: 'FAILED_PRECONDITION' }),
          );
        }
      }
    }
  }
  return null;
}

function count(c: WireContent, key: 'functionCall' | 'functionResponse'): number {
  let n = 0;
  for (const p of c.parts ?? []) if (p[key] !== undefined) n++;
  return n;
}

const COUNT_MISMATCH =
  'Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.';

/** §5: where function-call and function-response turns may stand. */
function checkTurns(contents: WireContent[]): { ok: false; error: GoogleErrorBody } | null {
  for (let i = 0; i < contents.length; i++) {
    const c = contents[i]!;
    const calls = count(c, 'functionCall');
    const responses = count(c, 'functionResponse');
    if (c.role === 'model' && calls > 0) {
      if (responses > 0) {
        return fail(
          googleError(
            400,
            'Please ensure that function call turn contains at least one function_call part which can not be mixed with function_response parts.',
          ),
        );
      }
      const prev = contents[i - 1];
      if (!prev || prev.role === 'model') {
        return fail(
          googleError(400, 'Please ensure that function call turn comes immediately after a user turn or after a function response turn.'),
        );
      }
      const next = contents[i + 1];
      if (next && count(next, 'functionResponse') !== calls) return fail(googleError(400, COUNT_MISMATCH));
    } else if (c.role !== 'model' && responses > 0) {
      const prev = contents[i - 1];
      if (!prev || prev.role !== 'model' || count(prev, 'functionCall') !== responses) {
        return fail(googleError(400, COUNT_MISMATCH));
      }
    }
  }
  return null;
}

/**
 * §6.2: on Gemini 3, every model function-call step of the current turn (after the newest user
 * content that is not only function responses) must carry a signature on its first call. Any
 * valid base64 passes, so the two documented dummy strings (§6.4) do too.
 */
function checkSignatures(contents: WireContent[]): { ok: false; error: GoogleErrorBody } | null {
  let start = 0;
  for (let i = contents.length - 1; i >= 0; i--) {
    const c = contents[i]!;
    if (c.role !== 'model' && (c.parts ?? []).some((p) => p.functionResponse === undefined)) {
      start = i + 1;
      break;
    }
  }
  for (let i = start; i < contents.length; i++) {
    const c = contents[i]!;
    if (c.role !== 'model') continue;
    const firstCall = (c.parts ?? []).find((p) => p.functionCall !== undefined);
    if (firstCall && !firstCall.thoughtSignature) {
      return fail(
        googleError(
          400,
          `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${firstCall.functionCall!.name ?? ''}\` , position ${i + 1}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`,
        ),
      );
    }
  }
  return null;
}

/** §8.4: function declarations next to built-in tools. */
function checkToolCombination(req: WireRequest, model: string): { ok: false; error: GoogleErrorBody } | null {
  let functions = false;
  let builtins = false;
  for (const t of req.tools ?? []) {
    if ((t.functionDeclarations?.length ?? 0) > 0) functions = true;
    for (const b of BUILTIN_TOOLS) if (t[b] !== undefined) builtins = true;
  }
  if (!functions || !builtins) return null;
  if (!isGemini3(model)) return fail(googleError(400, 'Tool use with function calling is unsupported'));
  if (req.toolConfig?.includeServerSideToolInvocations !== true) {
    return fail(
      googleError(400, 'Please enable tool_config.include_server_side_tool_invocations to use Built-in tools with Function calling.'),
    );
  }
  return null;
}

function checkSemantics(req: WireRequest, model: string, files: FileLookup): { ok: false; error: GoogleErrorBody } | null {
  const contents = req.contents ?? [];
  if (contents.length === 0) return starred('contents', 'contents is not specified');
  const partsError = checkParts(req, files);
  if (partsError) return partsError;
  const turnError = checkTurns(contents);
  if (turnError) return turnError;
  // Gemini 3 image models return signatures but do not enforce them (§6.2).
  if (isGemini3(model) && !isImageModel(model)) {
    const sigError = checkSignatures(contents);
    if (sigError) return sigError;
  }
  const toolError = checkToolCombination(req, model);
  if (toolError) return toolError;
  const supportError = checkModelSupport(req, model) ?? checkSafetySettings(req.safetySettings);
  if (supportError) return fail(supportError);

  for (let t = 0; t < (req.tools ?? []).length; t++) {
    const decls = req.tools![t]!.functionDeclarations ?? [];
    for (let d = 0; d < decls.length; d++) {
      const fd = decls[d]!;
      const at = `tools[${t}].function_declarations[${d}]`;
      if (!fd.name) return starred(`${at}.name`, 'property is empty');
      if (fd.parameters !== undefined && fd.parametersJsonSchema !== undefined) {
        return starred(`${at}.parameters`, 'parameters and parameters_json_schema are mutually exclusive');
      }
    }
  }

  const gc = req.generationConfig;
  if (gc) {
    if (gc.responseSchema !== undefined && gc.responseJsonSchema !== undefined) {
      return starred('generation_config.response_schema', 'response_schema and response_json_schema are mutually exclusive');
    }
    const tc = gc.thinkingConfig;
    if (tc) {
      if (tc.thinkingBudget !== undefined && tc.thinkingLevel !== undefined) {
        return fail(googleError(400, 'You can only set one of thinking budget and thinking level.'));
      }
      const asksThinking = tc.includeThoughts === true || (tc.thinkingBudget ?? 0) > 0 || tc.thinkingLevel !== undefined;
      if (asksThinking && !isThinkingModel(model)) {
        return fail(googleError(400, 'Thinking is not supported for this model.'));
      }
    }
    const modalities = gc.responseModalities ?? [];
    if (modalities.includes('IMAGE') && !isImageModel(model)) {
      return fail(
        googleError(400, `Model does not support the requested response modalities: ${modalities.map((m) => m.toLowerCase()).join(',')}`),
      );
    }
  }
  return null;
}
