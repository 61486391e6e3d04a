/**
 * OpenAI `tools` / `tool_choice` → Gemini `tools` / `toolConfig` (issue 3 items 1, 3, 4, 5;
 * gemini-wire §2.3, §2.4, §2.7, §8, §9). Pure.
 *
 * Function parameters go as `parametersJsonSchema` (real JSON Schema, minimal rewriting) rather
 * than the OpenAPI-subset `parameters`, which 400s on common keywords. Keywords Gemini's JSON
 * Schema subset cannot express and that change which arguments are valid (`allOf`, `not`,
 * `if`/`then`/`else`, …) get a 400 naming the tool instead of a silent change of meaning.
 *
 * Built-in tools travel as OpenAI function tools with reserved names (as in the seed):
 * `computer_use`/`computerUse` → `computerUse`, `grounding_search` → `googleSearch`,
 * `grounding_search_retrieval` → `googleSearchRetrieval`, `url_context` → `urlContext`;
 * `{type: "code_execution"}` → `codeExecution`, `{type: "url_context"}` → `urlContext`. OpenAI's
 * own `web_search_options` → `googleSearch` (once, however many forms ask for it): Gemini's
 * GoogleSearch has no location or context-size field (docs/gemini-fields.md), so those two
 * sub-fields are warnings. Mixing them with function tools is sent as asked: Gemini's own 400 explains
 * what the model does not support, rather than us dropping a tool.
 */
import { InvalidRequestError } from '../../errors.js';
import type { ChatCompletionRequest } from '../../openai/chat-request.js';

export type GeminiTool =
  | { functionDeclarations: Array<{ name: string; description?: string; parametersJsonSchema?: unknown }> }
  | { codeExecution: Record<string, never> }
  | { googleSearch: Record<string, never> }
  | { urlContext: Record<string, never> }
  | { googleSearchRetrieval: Record<string, unknown> }
  | { computerUse: { environment: string; excludedPredefinedFunctions?: string[] } };

export interface GeminiToolConfig {
  functionCallingConfig: { mode: 'AUTO' | 'ANY' | 'NONE'; allowedFunctionNames?: string[] };
}

export interface PreparedTools {
  tools?: GeminiTool[];
  toolConfig?: GeminiToolConfig;
  /** Names of the client's own function declarations. */
  functionNames: readonly string[];
  /** True when a computer-use tool was requested. */
  computerUse: boolean;
  warnings: readonly string[];
}

const COMPUTER_USE_NAMES = new Set(['computer_use', 'computerUse']);
const FUNCTION_NAME = /^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$/;

/** JSON Schema keywords outside Gemini's subset whose loss would change the meaning of a schema. */
const INEXPRESSIBLE = [
  'allOf',
  'not',
  'if',
  'then',
  'else',
  'dependentSchemas',
  'dependentRequired',
  'dependencies',
  'patternProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'contains',
  'propertyNames',
];

/** Schema-valued keywords to walk into. */
const SUBSCHEMA_MAPS = ['properties', '$defs', 'definitions'];
const SUBSCHEMA_LISTS = ['anyOf', 'oneOf', 'prefixItems'];
const SUBSCHEMA_SINGLE = ['items', 'additionalProperties'];

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Returns the schema Gemini gets: `const` → single-value `enum`, `type: [X, "null"]` → `anyOf`,
 * everything else as written. Throws (with the JSON pointer) on an inexpressible keyword.
 */
export function convertJsonSchema(schema: unknown, pointer = '#'): unknown {
  if (!isPlainObject(schema)) return schema;
  for (const keyword of INEXPRESSIBLE) {
    if (keyword in schema) throw new SchemaError(`${pointer}/${keyword}`, keyword);
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (SUBSCHEMA_MAPS.includes(key) && isPlainObject(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, convertJsonSchema(v, `${pointer}/${key}/${k}`)]));
    } else if (SUBSCHEMA_LISTS.includes(key) && Array.isArray(value)) {
      out[key] = value.map((v, i) => convertJsonSchema(v, `${pointer}/${key}/${i}`));
    } else if (SUBSCHEMA_SINGLE.includes(key) && isPlainObject(value)) {
      out[key] = convertJsonSchema(value, `${pointer}/${key}`);
    } else if (key === 'const') {
      if (!('enum' in schema)) out.enum = [value];
    } else {
      out[key] = value;
    }
  }
  if (Array.isArray(out.type)) {
    const types = out.type as unknown[];
    if (types.length === 1) out.type = types[0];
    else {
      delete out.type;
      const anyOf = types.map((t) => ({ type: t }));
      if ('anyOf' in out) throw new SchemaError(`${pointer}/type`, 'type array with anyOf');
      out.anyOf = anyOf;
    }
  }
  return out;
}

class SchemaError extends Error {
  constructor(
    readonly pointer: string,
    readonly keyword: string,
  ) {
    super(`${keyword} at ${pointer}`);
  }
}

/**
 * Legacy `functions` / `function_call` (OpenAI's pre-tools form) as the tools and tool choice they
 * stand for; explicit `tools` / `tool_choice` come first.
 */
function withLegacyFunctions(
  request: Pick<ChatCompletionRequest, 'tools' | 'tool_choice' | 'functions' | 'function_call'>,
): Pick<ChatCompletionRequest, 'tools' | 'tool_choice'> {
  if (request.functions === undefined && request.function_call === undefined) return request;
  const legacy = (request.functions ?? []).map((fn) => ({ type: 'function' as const, function: fn }));
  const call = request.function_call;
  const choice = call === undefined || typeof call === 'string' ? call : { type: 'function' as const, function: { name: call.name } };
  return {
    tools: [...(request.tools ?? []), ...legacy],
    ...(request.tool_choice !== undefined ? { tool_choice: request.tool_choice } : choice !== undefined ? { tool_choice: choice } : {}),
  };
}

/** What a request without tools prepares to; shared, so a plain chat request allocates nothing here. */
const NO_TOOLS: PreparedTools = Object.freeze({
  functionNames: Object.freeze([]),
  computerUse: false,
  warnings: Object.freeze([]),
});

export function prepareTools(
  original: Pick<ChatCompletionRequest, 'tools' | 'tool_choice' | 'functions' | 'function_call' | 'web_search_options'>,
): PreparedTools {
  if (
    original.tools === undefined &&
    original.tool_choice === undefined &&
    original.functions === undefined &&
    original.function_call === undefined &&
    original.web_search_options == null
  ) {
    return NO_TOOLS;
  }
  const request = withLegacyFunctions(original);
  const warnings: string[] = [];
  const declarations: Array<{ name: string; description?: string; parametersJsonSchema?: unknown }> = [];
  const builtIns: GeminiTool[] = [];
  let computerUse = false;
  let googleSearch = false;
  let urlContext = false;
  const addGoogleSearch = (): void => {
    if (!googleSearch) builtIns.push({ googleSearch: {} });
    googleSearch = true;
  };
  const addUrlContext = (): void => {
    if (!urlContext) builtIns.push({ urlContext: {} });
    urlContext = true;
  };

  (request.tools ?? []).forEach((tool, i) => {
    if (tool.type === 'code_execution') {
      builtIns.push({ codeExecution: {} });
      return;
    }
    if (tool.type === 'url_context') {
      addUrlContext();
      return;
    }
    const fn = tool.function;
    const param = `tools[${i}].function`;
    if (COMPUTER_USE_NAMES.has(fn.name)) {
      const params = fn.parameters ?? {};
      const environment = typeof params.environment === 'string' ? params.environment : 'ENVIRONMENT_BROWSER';
      const excluded = params.excluded_predefined_functions ?? params.excludedPredefinedFunctions;
      if (excluded !== undefined && !(Array.isArray(excluded) && excluded.every((e) => typeof e === 'string'))) {
        throw new InvalidRequestError(`${param}.parameters.excluded_predefined_functions: must be an array of strings`, {
          param: `${param}.parameters.excluded_predefined_functions`,
        });
      }
      builtIns.push({
        computerUse: { environment, ...(excluded !== undefined ? { excludedPredefinedFunctions: excluded as string[] } : {}) },
      });
      computerUse = true;
      return;
    }
    if (fn.name === 'grounding_search') {
      addGoogleSearch();
      return;
    }
    if (fn.name === 'url_context') {
      addUrlContext();
      return;
    }
    if (fn.name === 'grounding_search_retrieval') {
      const config = fn.parameters?.dynamic_retrieval_config ?? fn.parameters?.dynamicRetrievalConfig;
      builtIns.push({ googleSearchRetrieval: isPlainObject(config) ? { dynamicRetrievalConfig: config } : {} });
      return;
    }
    if (!FUNCTION_NAME.test(fn.name)) {
      throw new InvalidRequestError(
        `${param}.name: Gemini function names use letters, digits, _ . : - (starting with a letter or _), at most 64 characters`,
        { param: `${param}.name`, code: 'invalid_function_name' },
      );
    }
    if (declarations.some((d) => d.name === fn.name)) {
      throw new InvalidRequestError(`${param}.name: duplicate function name ${fn.name}`, { param: `${param}.name` });
    }
    let parametersJsonSchema: unknown;
    if (fn.parameters !== undefined) {
      try {
        parametersJsonSchema = convertJsonSchema(fn.parameters);
      } catch (err) {
        if (!(err instanceof SchemaError)) throw err;
        throw new InvalidRequestError(
          `tool ${fn.name}: its parameters schema uses ${err.keyword} (at ${err.pointer}), which Gemini cannot express`,
          { param: `${param}.parameters`, code: 'unsupported_schema' },
        );
      }
    }
    if (fn.strict) warnings.push('ignored_param:tools.function.strict');
    declarations.push({
      name: fn.name,
      ...(fn.description !== undefined ? { description: fn.description } : {}),
      ...(parametersJsonSchema !== undefined ? { parametersJsonSchema } : {}),
    });
  });

  const search = original.web_search_options;
  if (search != null) {
    addGoogleSearch();
    if (search.search_context_size !== undefined) warnings.push('ignored_param:web_search_options.search_context_size');
    if (search.user_location != null) warnings.push('ignored_param:web_search_options.user_location');
  }

  const tools: GeminiTool[] = [...(declarations.length > 0 ? [{ functionDeclarations: declarations }] : []), ...builtIns];
  const names = declarations.map((d) => d.name);
  let toolConfig: GeminiToolConfig | undefined;
  const choice = request.tool_choice;
  if (choice !== undefined) {
    if (names.length === 0 && !computerUse) {
      if (choice === 'auto' || choice === 'none') warnings.push('ignored_param:tool_choice');
      else {
        throw new InvalidRequestError('tool_choice: requires function tools', { param: 'tool_choice' });
      }
    } else if (choice === 'auto') toolConfig = { functionCallingConfig: { mode: 'AUTO' } };
    else if (choice === 'none') toolConfig = { functionCallingConfig: { mode: 'NONE' } };
    else if (choice === 'required') toolConfig = { functionCallingConfig: { mode: 'ANY' } };
    else {
      if (!names.includes(choice.function.name)) {
        throw new InvalidRequestError(`tool_choice.function.name: no function tool named ${choice.function.name}`, {
          param: 'tool_choice.function.name',
        });
      }
      toolConfig = { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [choice.function.name] } };
    }
  }
  return {
    functionNames: names,
    computerUse,
    warnings,
    ...(tools.length > 0 ? { tools } : {}),
    ...(toolConfig ? { toolConfig } : {}),
  };
}
