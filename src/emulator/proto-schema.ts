// The request messages the emulator parses, field by field, as proto3 JSON does it
// (gemini-wire.md §1, §2, §2.4, §13, §14): camelCase and snake_case names both accepted, enums
// case-insensitive, unknown names rejected with Google's "Cannot find field" text, int64 as
// numbers or strings. Field lists come from the v1beta protos as §2 transcribes them.
// The tables are built once at module load; `parseMessage` only does lookups.

import type { FieldViolation } from './errors.js';

type Scalar = 'string' | 'int' | 'float' | 'bool' | 'bytes' | 'struct' | 'value';
type FieldSpec = Scalar | `msg:${string}` | `enum:${string}` | { repeated: FieldSpec } | { map: FieldSpec };

interface FieldDef {
  name: string;
  snake: string;
  repeated: boolean;
  map: boolean;
  kind: Scalar | 'msg' | 'enum';
  ref: string;
}

interface MessageDef {
  name: string;
  fields: Map<string, FieldDef>;
}

const ENUMS: Record<string, readonly string[]> = {
  Type: ['TYPE_UNSPECIFIED', 'STRING', 'NUMBER', 'INTEGER', 'BOOLEAN', 'ARRAY', 'OBJECT', 'NULL'],
  Mode: ['MODE_UNSPECIFIED', 'AUTO', 'ANY', 'NONE', 'VALIDATED'],
  Modality: ['MODALITY_UNSPECIFIED', 'TEXT', 'IMAGE', 'AUDIO'],
  ThinkingLevel: ['THINKING_LEVEL_UNSPECIFIED', 'MINIMAL', 'LOW', 'MEDIUM', 'HIGH'],
  HarmCategory: [
    'HARM_CATEGORY_UNSPECIFIED',
    'HARM_CATEGORY_HARASSMENT',
    'HARM_CATEGORY_HATE_SPEECH',
    'HARM_CATEGORY_SEXUALLY_EXPLICIT',
    'HARM_CATEGORY_DANGEROUS_CONTENT',
    'HARM_CATEGORY_CIVIC_INTEGRITY',
  ],
  HarmBlockThreshold: [
    'HARM_BLOCK_THRESHOLD_UNSPECIFIED',
    'BLOCK_LOW_AND_ABOVE',
    'BLOCK_MEDIUM_AND_ABOVE',
    'BLOCK_ONLY_HIGH',
    'BLOCK_NONE',
    'OFF',
  ],
  Language: ['LANGUAGE_UNSPECIFIED', 'PYTHON'],
  Outcome: ['OUTCOME_UNSPECIFIED', 'OUTCOME_OK', 'OUTCOME_FAILED', 'OUTCOME_DEADLINE_EXCEEDED'],
  DynamicMode: ['MODE_UNSPECIFIED', 'MODE_DYNAMIC'],
  Environment: ['ENVIRONMENT_UNSPECIFIED', 'ENVIRONMENT_BROWSER', 'ENVIRONMENT_MOBILE', 'ENVIRONMENT_DESKTOP'],
  Behavior: ['UNSPECIFIED', 'BLOCKING', 'NON_BLOCKING'],
  Scheduling: ['SCHEDULING_UNSPECIFIED', 'SILENT', 'WHEN_IDLE', 'INTERRUPT'],
  MediaResolution: [
    'MEDIA_RESOLUTION_UNSPECIFIED',
    'MEDIA_RESOLUTION_LOW',
    'MEDIA_RESOLUTION_MEDIUM',
    'MEDIA_RESOLUTION_HIGH',
    'MEDIA_RESOLUTION_ULTRA_HIGH',
  ],
  ToolType: ['TOOL_TYPE_UNSPECIFIED', 'GOOGLE_SEARCH_WEB', 'GOOGLE_SEARCH_IMAGE', 'URL_CONTEXT', 'GOOGLE_MAPS', 'FILE_SEARCH'],
  // Lower-case `standard|flex|priority` since 2026-04; the SERVICE_TIER_* names stopped working
  // (gemini-more-fields §9). Enums parse case-insensitively.
  ServiceTier: ['UNSPECIFIED', 'STANDARD', 'FLEX', 'PRIORITY'],
  TaskType: [
    'TASK_TYPE_UNSPECIFIED',
    'RETRIEVAL_QUERY',
    'RETRIEVAL_DOCUMENT',
    'SEMANTIC_SIMILARITY',
    'CLASSIFICATION',
    'CLUSTERING',
    'QUESTION_ANSWERING',
    'FACT_VERIFICATION',
    'CODE_RETRIEVAL_QUERY',
  ],
};

const MESSAGES: Record<string, Record<string, FieldSpec>> = {
  GenerateContentRequest: {
    model: 'string',
    contents: { repeated: 'msg:Content' },
    systemInstruction: 'msg:Content',
    tools: { repeated: 'msg:Tool' },
    toolConfig: 'msg:ToolConfig',
    safetySettings: { repeated: 'msg:SafetySetting' },
    generationConfig: 'msg:GenerationConfig',
    cachedContent: 'string',
    serviceTier: 'enum:ServiceTier',
    store: 'bool',
  },
  // cached_content.proto (input fields; ttl / expireTime are checked by features/cached-contents.ts).
  CachedContent: {
    name: 'string',
    model: 'string',
    displayName: 'string',
    contents: { repeated: 'msg:Content' },
    systemInstruction: 'msg:Content',
    tools: { repeated: 'msg:Tool' },
    toolConfig: 'msg:ToolConfig',
  },
  CountTokensRequest: {
    model: 'string',
    contents: { repeated: 'msg:Content' },
    generateContentRequest: 'msg:GenerateContentRequest',
  },
  // generative_service.proto EmbedContentRequest (+ output_dimensionality, added after the 2024 proto).
  EmbedContentRequest: {
    model: 'string',
    content: 'msg:Content',
    taskType: 'enum:TaskType',
    title: 'string',
    outputDimensionality: 'int',
  },
  BatchEmbedContentsRequest: { model: 'string', requests: { repeated: 'msg:EmbedContentRequest' } },
  Content: { role: 'string', parts: { repeated: 'msg:Part' } },
  Part: {
    text: 'string',
    inlineData: 'msg:Blob',
    fileData: 'msg:FileData',
    functionCall: 'msg:FunctionCall',
    functionResponse: 'msg:FunctionResponse',
    executableCode: 'msg:ExecutableCode',
    codeExecutionResult: 'msg:CodeExecutionResult',
    toolCall: 'msg:ToolCall',
    toolResponse: 'msg:ToolResponse',
    thought: 'bool',
    thoughtSignature: 'bytes',
    videoMetadata: 'msg:VideoMetadata',
    mediaResolution: 'msg:PartMediaResolution',
    partMetadata: 'struct',
  },
  Blob: { mimeType: 'string', data: 'bytes' },
  FileData: { mimeType: 'string', fileUri: 'string' },
  FunctionCall: { id: 'string', name: 'string', args: 'struct' },
  FunctionResponse: {
    id: 'string',
    name: 'string',
    response: 'struct',
    parts: { repeated: 'msg:FunctionResponsePart' },
    willContinue: 'bool',
    scheduling: 'enum:Scheduling',
  },
  // Gemini API: only inlineData in function-response parts (§2.2).
  FunctionResponsePart: { inlineData: 'msg:FunctionResponseBlob' },
  FunctionResponseBlob: { mimeType: 'string', data: 'bytes' },
  ExecutableCode: { id: 'string', language: 'enum:Language', code: 'string' },
  CodeExecutionResult: { id: 'string', outcome: 'enum:Outcome', output: 'string' },
  ToolCall: { id: 'string', toolType: 'enum:ToolType', args: 'struct' },
  ToolResponse: { id: 'string', toolType: 'enum:ToolType', response: 'struct' },
  VideoMetadata: { startOffset: 'string', endOffset: 'string', fps: 'float' },
  PartMediaResolution: { level: 'enum:MediaResolution', numTokens: 'int' },
  Tool: {
    functionDeclarations: { repeated: 'msg:FunctionDeclaration' },
    googleSearchRetrieval: 'msg:GoogleSearchRetrieval',
    codeExecution: 'msg:CodeExecution',
    googleSearch: 'msg:GoogleSearch',
    urlContext: 'msg:UrlContext',
    googleMaps: 'msg:GoogleMaps',
    fileSearch: 'msg:FileSearch',
    computerUse: 'msg:ComputerUse',
    mcpServers: { repeated: 'msg:McpServer' },
  },
  FunctionDeclaration: {
    name: 'string',
    description: 'string',
    parameters: 'msg:Schema',
    parametersJsonSchema: 'value',
    response: 'msg:Schema',
    responseJsonSchema: 'value',
    behavior: 'enum:Behavior',
  },
  // §2.4: exactly these keys; anything else (additionalProperties, $ref, const, oneOf…) is a 400.
  Schema: {
    type: 'enum:Type',
    format: 'string',
    title: 'string',
    description: 'string',
    nullable: 'bool',
    enum: { repeated: 'string' },
    items: 'msg:Schema',
    minItems: 'int',
    maxItems: 'int',
    properties: { map: 'msg:Schema' },
    required: { repeated: 'string' },
    minProperties: 'int',
    maxProperties: 'int',
    minimum: 'float',
    maximum: 'float',
    minLength: 'int',
    maxLength: 'int',
    pattern: 'string',
    example: 'value',
    anyOf: { repeated: 'msg:Schema' },
    propertyOrdering: { repeated: 'string' },
    default: 'value',
  },
  GoogleSearchRetrieval: { dynamicRetrievalConfig: 'msg:DynamicRetrievalConfig' },
  DynamicRetrievalConfig: { mode: 'enum:DynamicMode', dynamicThreshold: 'float' },
  CodeExecution: {},
  GoogleSearch: { timeRangeFilter: 'msg:Interval', searchTypes: 'msg:SearchTypes' },
  Interval: { startTime: 'string', endTime: 'string' },
  SearchTypes: { webSearch: 'msg:Empty', imageSearch: 'msg:Empty' },
  Empty: {},
  UrlContext: {},
  GoogleMaps: { enableWidget: 'bool' },
  FileSearch: { fileSearchStoreNames: { repeated: 'string' }, metadataFilter: 'string', topK: 'int' },
  ComputerUse: {
    environment: 'enum:Environment',
    excludedPredefinedFunctions: { repeated: 'string' },
    disabledSafetyPolicies: { repeated: 'string' },
    enablePromptInjectionDetection: 'bool',
  },
  McpServer: { name: 'string', streamableHttpTransport: 'struct' },
  ToolConfig: {
    functionCallingConfig: 'msg:FunctionCallingConfig',
    retrievalConfig: 'msg:RetrievalConfig',
    includeServerSideToolInvocations: 'bool',
  },
  FunctionCallingConfig: { mode: 'enum:Mode', allowedFunctionNames: { repeated: 'string' } },
  RetrievalConfig: { latLng: 'msg:LatLng', languageCode: 'string' },
  LatLng: { latitude: 'float', longitude: 'float' },
  SafetySetting: { category: 'enum:HarmCategory', threshold: 'enum:HarmBlockThreshold' },
  GenerationConfig: {
    candidateCount: 'int',
    stopSequences: { repeated: 'string' },
    maxOutputTokens: 'int',
    temperature: 'float',
    topP: 'float',
    topK: 'int',
    seed: 'int',
    presencePenalty: 'float',
    frequencyPenalty: 'float',
    responseLogprobs: 'bool',
    logprobs: 'int',
    responseMimeType: 'string',
    responseSchema: 'msg:Schema',
    responseJsonSchema: 'value',
    responseModalities: { repeated: 'enum:Modality' },
    thinkingConfig: 'msg:ThinkingConfig',
    imageConfig: 'msg:ImageConfig',
    speechConfig: 'struct',
    mediaResolution: 'enum:MediaResolution',
    enableEnhancedCivicAnswers: 'bool',
    audioTranscriptionConfig: 'struct',
  },
  ThinkingConfig: { includeThoughts: 'bool', thinkingBudget: 'int', thinkingLevel: 'enum:ThinkingLevel' },
  ImageConfig: { aspectRatio: 'string', imageSize: 'string' },
};

function toSnake(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

function buildField(name: string, spec: FieldSpec): FieldDef {
  let repeated = false;
  let map = false;
  let inner: FieldSpec = spec;
  if (typeof inner === 'object' && 'repeated' in inner) {
    repeated = true;
    inner = inner.repeated;
  } else if (typeof inner === 'object' && 'map' in inner) {
    map = true;
    inner = inner.map;
  }
  const s = inner as string;
  const kind = s.startsWith('msg:') ? 'msg' : s.startsWith('enum:') ? 'enum' : (s as Scalar);
  const ref = kind === 'msg' || kind === 'enum' ? s.slice(s.indexOf(':') + 1) : '';
  return { name, snake: toSnake(name), repeated, map, kind, ref };
}

const DEFS = new Map<string, MessageDef>();
for (const [msgName, fields] of Object.entries(MESSAGES)) {
  const map = new Map<string, FieldDef>();
  for (const [name, spec] of Object.entries(fields)) {
    const def = buildField(name, spec);
    map.set(name, def);
    map.set(def.snake, def);
  }
  DEFS.set(msgName, { name: msgName, fields: map });
}
const ENUM_SETS = new Map<string, Set<string>>(Object.entries(ENUMS).map(([k, v]) => [k, new Set(v)]));

const PROTO_PREFIX = 'type.googleapis.com/google.ai.generativelanguage.v1beta.';
const SCALAR_TYPE_NAMES: Record<string, string> = {
  string: 'TYPE_STRING',
  int: 'TYPE_INT32',
  float: 'TYPE_FLOAT',
  bool: 'TYPE_BOOL',
  bytes: 'TYPE_BYTES',
  struct: 'type.googleapis.com/google.protobuf.Struct',
};
// Standard or web-safe base64, padding optional (Google's decoder accepts both).
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;
const NUMERIC = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;

function join(loc: string, seg: string): string {
  return loc === '' ? seg : `${loc}.${seg}`;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function invalidValue(loc: string, typeName: string, value: unknown, out: FieldViolation[]): undefined {
  const shown = typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value) ?? String(value);
  out.push({ field: loc, description: `Invalid value at '${loc}' (${typeName}), ${shown}` });
  return undefined;
}

function parseSingle(def: FieldDef, value: unknown, loc: string, out: FieldViolation[]): unknown {
  switch (def.kind) {
    case 'string':
      return typeof value === 'string' ? value : invalidValue(loc, 'TYPE_STRING', value, out);
    case 'bool':
      return typeof value === 'boolean' ? value : invalidValue(loc, 'TYPE_BOOL', value, out);
    case 'int':
      if (typeof value === 'number' && Number.isInteger(value)) return value;
      if (typeof value === 'string' && NUMERIC.test(value) && Number.isInteger(Number(value))) return Number(value);
      return invalidValue(loc, 'TYPE_INT32', value, out);
    case 'float':
      if (typeof value === 'number') return value;
      if (typeof value === 'string' && NUMERIC.test(value)) return Number(value);
      return invalidValue(loc, 'TYPE_FLOAT', value, out);
    case 'bytes':
      if (typeof value === 'string' && BASE64.test(value)) return value;
      if (typeof value === 'string') {
        out.push({ field: loc, description: `Invalid value at '${loc}' (TYPE_BYTES), Base64 decoding failed for ${JSON.stringify(value)}` });
        return undefined;
      }
      return invalidValue(loc, 'TYPE_BYTES', value, out);
    case 'struct':
      return isPlainObject(value) ? value : invalidValue(loc, SCALAR_TYPE_NAMES.struct!, value, out);
    case 'value':
      return value;
    case 'enum': {
      const set = ENUM_SETS.get(def.ref)!;
      if (typeof value === 'string') {
        const upper = value.toUpperCase();
        if (set.has(upper)) return upper;
      } else if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value < set.size) {
        return ENUMS[def.ref]![value];
      }
      return invalidValue(loc, `${PROTO_PREFIX}${def.ref}`, value, out);
    }
    case 'msg':
      if (!isPlainObject(value)) return invalidValue(loc, `${PROTO_PREFIX}${def.ref}`, value, out);
      return parseMessage(def.ref, value, loc, out);
  }
}

/**
 * Parses `value` as message `msgName` at location `loc` (snake_case proto path, '' at the top).
 * Returns the camelCase copy of the recognised fields and appends one violation per problem.
 */
export function parseMessage(msgName: string, value: Record<string, unknown>, loc: string, out: FieldViolation[]): Record<string, unknown> {
  const msg = DEFS.get(msgName)!;
  const result: Record<string, unknown> = {};
  for (const key in value) {
    const v = value[key];
    const def = msg.fields.get(key);
    if (!def) {
      const at = loc === '' ? '' : ` at '${loc}'`;
      const d: FieldViolation = { description: `Invalid JSON payload received. Unknown name ${JSON.stringify(key)}${at}: Cannot find field.` };
      if (loc !== '') d.field = loc;
      out.push(d);
      continue;
    }
    if (v === null || v === undefined) continue;
    const fieldLoc = join(loc, def.snake);
    if (def.repeated) {
      if (!Array.isArray(v)) {
        invalidValue(fieldLoc, def.kind === 'msg' || def.kind === 'enum' ? `${PROTO_PREFIX}${def.ref}` : (SCALAR_TYPE_NAMES[def.kind] ?? def.kind), v, out);
        continue;
      }
      const arr: unknown[] = new Array(v.length);
      for (let i = 0; i < v.length; i++) arr[i] = parseSingle(def, v[i], `${fieldLoc}[${i}]`, out);
      result[def.name] = arr;
    } else if (Array.isArray(v) && def.kind !== 'value') {
      const at = loc === '' ? '' : ` at '${loc}'`;
      const d: FieldViolation = {
        description: `Invalid JSON payload received. Unknown name ${JSON.stringify(key)}${at}: Proto field is not repeating, cannot start list.`,
      };
      if (loc !== '') d.field = loc;
      out.push(d);
    } else if (def.map) {
      if (!isPlainObject(v)) {
        invalidValue(fieldLoc, `${PROTO_PREFIX}${def.ref}`, v, out);
        continue;
      }
      const m: Record<string, unknown> = {};
      let i = 0;
      for (const k in v) {
        m[k] = parseSingle(def, v[k], `${fieldLoc}[${i}].value`, out);
        i++;
      }
      result[def.name] = m;
    } else {
      result[def.name] = parseSingle(def, v, fieldLoc, out);
    }
  }
  return result;
}
