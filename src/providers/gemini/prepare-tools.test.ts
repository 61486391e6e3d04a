import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../errors.js';
import type { ChatCompletionRequest } from '../../openai/chat-request.js';
import { convertJsonSchema, prepareTools } from './prepare-tools.js';

type Req = Pick<ChatCompletionRequest, 'tools' | 'tool_choice'>;
const fn = (name: string, parameters?: Record<string, unknown>) => ({
  type: 'function' as const,
  function: { name, description: `${name} tool`, ...(parameters ? { parameters } : {}) },
});
const weather = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };

describe('prepareTools', () => {
  it.each<{ name: string; input: Req; want: unknown }>([
    { name: 'no tools', input: {}, want: { functionNames: [], computerUse: false, warnings: [] } },
    { name: 'an empty tools list', input: { tools: [] }, want: { functionNames: [], computerUse: false, warnings: [] } },
    {
      name: 'function → parametersJsonSchema unchanged',
      input: { tools: [fn('get_weather', weather)] },
      want: {
        tools: [{ functionDeclarations: [{ name: 'get_weather', description: 'get_weather tool', parametersJsonSchema: weather }] }],
        functionNames: ['get_weather'],
        computerUse: false,
        warnings: [],
      },
    },
    {
      name: 'code execution, search grounding and retrieval next to functions',
      input: {
        tools: [
          { type: 'code_execution' },
          fn('grounding_search'),
          fn('grounding_search_retrieval', { dynamic_retrieval_config: { mode: 'MODE_DYNAMIC', dynamicThreshold: 0.7 } }),
          fn('f'),
        ],
      },
      want: {
        tools: [
          { functionDeclarations: [{ name: 'f', description: 'f tool' }] },
          { codeExecution: {} },
          { googleSearch: {} },
          { googleSearchRetrieval: { dynamicRetrievalConfig: { mode: 'MODE_DYNAMIC', dynamicThreshold: 0.7 } } },
        ],
        functionNames: ['f'],
        computerUse: false,
        warnings: [],
      },
    },
    {
      name: 'computer use',
      input: {
        tools: [fn('computer_use', { environment: 'ENVIRONMENT_BROWSER', excluded_predefined_functions: ['drag_and_drop'] }), fn('open_app')],
      },
      want: {
        tools: [
          { functionDeclarations: [{ name: 'open_app', description: 'open_app tool' }] },
          { computerUse: { environment: 'ENVIRONMENT_BROWSER', excludedPredefinedFunctions: ['drag_and_drop'] } },
        ],
        functionNames: ['open_app'],
        computerUse: true,
        warnings: [],
      },
    },
    {
      name: 'tool_choice auto',
      input: { tools: [fn('f')], tool_choice: 'auto' },
      want: {
        tools: [{ functionDeclarations: [{ name: 'f', description: 'f tool' }] }],
        toolConfig: { functionCallingConfig: { mode: 'AUTO' } },
        functionNames: ['f'],
        computerUse: false,
        warnings: [],
      },
    },
    {
      name: 'tool_choice none',
      input: { tools: [fn('f')], tool_choice: 'none' },
      want: {
        tools: [{ functionDeclarations: [{ name: 'f', description: 'f tool' }] }],
        toolConfig: { functionCallingConfig: { mode: 'NONE' } },
        functionNames: ['f'],
        computerUse: false,
        warnings: [],
      },
    },
    {
      name: 'tool_choice required',
      input: { tools: [fn('f')], tool_choice: 'required' },
      want: {
        tools: [{ functionDeclarations: [{ name: 'f', description: 'f tool' }] }],
        toolConfig: { functionCallingConfig: { mode: 'ANY' } },
        functionNames: ['f'],
        computerUse: false,
        warnings: [],
      },
    },
    {
      name: 'tool_choice named',
      input: { tools: [fn('f'), fn('g')], tool_choice: { type: 'function', function: { name: 'g' } } },
      want: {
        tools: [{ functionDeclarations: [{ name: 'f', description: 'f tool' }, { name: 'g', description: 'g tool' }] }],
        toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['g'] } },
        functionNames: ['f', 'g'],
        computerUse: false,
        warnings: [],
      },
    },
  ])('$name', ({ input, want }) => {
    expect(prepareTools(input)).toStrictEqual(want);
  });

  it.each<{ name: string; input: Req; param: string; message?: string }>([
    {
      name: 'allOf cannot be expressed: 400 naming the tool',
      input: { tools: [fn('ok'), fn('lookup', { type: 'object', properties: { a: { allOf: [{ type: 'string' }] } } })] },
      param: 'tools[1].function.parameters',
      message: 'tool lookup: its parameters schema uses allOf (at #/properties/a/allOf), which Gemini cannot express',
    },
    { name: 'not', input: { tools: [fn('t', { not: { type: 'string' } })] }, param: 'tools[0].function.parameters' },
    { name: 'bad name', input: { tools: [fn('9lives')] }, param: 'tools[0].function.name' },
    { name: 'duplicate name', input: { tools: [fn('a'), fn('a')] }, param: 'tools[1].function.name' },
    { name: 'named choice unknown', input: { tools: [fn('a')], tool_choice: { type: 'function', function: { name: 'b' } } }, param: 'tool_choice.function.name' },
    { name: 'required without tools', input: { tool_choice: 'required' }, param: 'tool_choice' },
  ])('400: $name', ({ input, param, message }) => {
    let err: unknown;
    try {
      prepareTools(input);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InvalidRequestError);
    expect((err as InvalidRequestError).param).toStrictEqual(param);
    if (message) expect((err as InvalidRequestError).message).toStrictEqual(message);
  });
});

describe('convertJsonSchema', () => {
  it.each([
    { name: 'const → enum', input: { type: 'string', const: 'x' }, want: { type: 'string', enum: ['x'] } },
    {
      name: 'nullable type array → anyOf',
      input: { type: 'object', properties: { a: { type: ['string', 'null'], description: 'd' } } },
      want: { type: 'object', properties: { a: { description: 'd', anyOf: [{ type: 'string' }, { type: 'null' }] } } },
    },
    { name: 'single-element type array', input: { type: ['integer'] }, want: { type: 'integer' } },
    {
      name: '$defs/$ref and additionalProperties kept (JSON Schema field takes them)',
      input: { $defs: { P: { type: 'string' } }, type: 'object', properties: { p: { $ref: '#/$defs/P' } }, additionalProperties: false },
      want: { $defs: { P: { type: 'string' } }, type: 'object', properties: { p: { $ref: '#/$defs/P' } }, additionalProperties: false },
    },
    {
      name: 'nested items',
      input: { type: 'array', items: { type: 'string', const: 'a' } },
      want: { type: 'array', items: { type: 'string', enum: ['a'] } },
    },
  ])('$name', ({ input, want }) => {
    expect(convertJsonSchema(input)).toStrictEqual(want);
  });
});
