import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from './index.js';
import { post } from './test-helpers.js';
import { validateGenerateRequest } from './validate-request.js';

const noFiles = () => undefined;
const user = (text: string) => ({ role: 'user', parts: [{ text }] });
const weatherTool = { functionDeclarations: [{ name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } }] };

function errorOf(body: unknown, model = 'gemini-2.5-flash') {
  const r = validateGenerateRequest(body, model, noFiles);
  return r.ok ? null : r.error;
}

describe('proto-JSON parsing (§1, §2.4, §16.3)', () => {
  it.each([
    {
      name: 'JSON-Schema keyword inside parameters',
      body: {
        contents: [user('hi')],
        tools: [{ functionDeclarations: [{ name: 'f', parameters: { type: 'object', additionalProperties: false } }] }],
      },
      want: {
        field: 'tools[0].function_declarations[0].parameters',
        description:
          "Invalid JSON payload received. Unknown name \"additionalProperties\" at 'tools[0].function_declarations[0].parameters': Cannot find field.",
      },
    },
    {
      name: 'keyword in a nested property uses properties[N].value',
      body: {
        contents: [user('hi')],
        tools: [{ function_declarations: [{ name: 'f', parameters: { type: 'OBJECT', properties: { a: { type: 'string' }, b: { const: 1 } } } }] }],
      },
      want: {
        field: 'tools[0].function_declarations[0].parameters.properties[1].value',
        description:
          "Invalid JSON payload received. Unknown name \"const\" at 'tools[0].function_declarations[0].parameters.properties[1].value': Cannot find field.",
      },
    },
    {
      name: 'unknown top-level field',
      body: { contents: [user('hi')], messages: [] },
      want: { description: 'Invalid JSON payload received. Unknown name "messages": Cannot find field.' },
    },
    {
      name: 'function_response.response given as a list',
      body: {
        contents: [user('hi'), { role: 'model', parts: [{ functionCall: { name: 'f' } }] }, { role: 'user', parts: [{ functionResponse: { name: 'f', response: [1] } }] }],
      },
      want: {
        field: 'contents[2].parts[0].function_response',
        description:
          "Invalid JSON payload received. Unknown name \"response\" at 'contents[2].parts[0].function_response': Proto field is not repeating, cannot start list.",
      },
    },
    {
      name: 'type given as an array',
      body: { contents: [user('hi')], tools: [{ functionDeclarations: [{ name: 'f', parameters: { type: ['string', 'null'] } }] }] },
      want: {
        field: 'tools[0].function_declarations[0].parameters',
        description:
          "Invalid JSON payload received. Unknown name \"type\" at 'tools[0].function_declarations[0].parameters': Proto field is not repeating, cannot start list.",
      },
    },
    {
      name: 'bad enum value',
      body: { contents: [user('hi')], generationConfig: { responseModalities: ['SMELL'] } },
      want: {
        field: 'generation_config.response_modalities[0]',
        description:
          "Invalid value at 'generation_config.response_modalities[0]' (type.googleapis.com/google.ai.generativelanguage.v1beta.Modality), \"SMELL\"",
      },
    },
    {
      name: 'signature that is not base64',
      body: { contents: [user('hi'), { role: 'model', parts: [{ text: 'x', thoughtSignature: 'not base64!' }] }, user('again')] },
      want: {
        field: 'contents[1].parts[0].thought_signature',
        description: "Invalid value at 'contents[1].parts[0].thought_signature' (TYPE_BYTES), Base64 decoding failed for \"not base64!\"",
      },
    },
  ])('$name → 400 with BadRequest.fieldViolations', ({ body, want }) => {
    expect(errorOf(body)).toStrictEqual({
      error: {
        code: 400,
        message: want.description,
        status: 'INVALID_ARGUMENT',
        details: [{ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [want] }],
      },
    });
  });

  it('accepts snake_case, lower-case enums, int64 strings and JSON Schema in parametersJsonSchema', () => {
    const r = validateGenerateRequest(
      {
        contents: [user('hi')],
        system_instruction: { parts: [{ text: 'be brief' }] },
        tool_config: { function_calling_config: { mode: 'any', allowed_function_names: ['f'] } },
        generation_config: { max_output_tokens: '50', thinking_config: { include_thoughts: true, thinking_budget: 100 } },
        tools: [{ functionDeclarations: [{ name: 'f', parametersJsonSchema: { type: 'object', additionalProperties: false, $defs: {} } }] }],
      },
      'gemini-2.5-flash',
      noFiles,
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.toolConfig).toStrictEqual({ functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['f'] } });
    expect(r.value.generationConfig).toStrictEqual({ maxOutputTokens: 50, thinkingConfig: { includeThoughts: true, thinkingBudget: 100 } });
  });
});

describe('semantic rules', () => {
  const call = (name: string, sig?: string) => ({ functionCall: { name, args: {} }, ...(sig ? { thoughtSignature: sig } : {}) });
  const resp = (name: string) => ({ functionResponse: { name, response: { output: 1 } } });

  it.each([
    { name: 'no contents', body: {}, want: '* GenerateContentRequest.contents: contents is not specified\n' },
    { name: 'empty parts', body: { contents: [{ role: 'user', parts: [] }] }, want: '* GenerateContentRequest.contents[0].parts: contents.parts must not be empty.\n' },
    {
      name: 'part without data',
      body: { contents: [{ role: 'user', parts: [{ thought: true }] }] },
      want: "* GenerateContentRequest.contents[0].parts[0].data: required oneof field 'data' must have one initialized field\n",
    },
    {
      name: 'two data fields',
      body: { contents: [{ role: 'user', parts: [{ text: 'a', inlineData: { mimeType: 'image/png', data: 'AA==' } }] }] },
      want: "Invalid value at 'contents[0].parts[0]' (oneof), oneof field 'data' is already set. Cannot set 'inline_data'",
    },
    { name: 'bad role', body: { contents: [{ role: 'assistant', parts: [{ text: 'a' }] }] }, want: 'Please use a valid role: user, model.' },
    {
      name: 'history starts with a function call',
      body: { contents: [{ role: 'model', parts: [call('f')] }, { role: 'user', parts: [resp('f')] }] },
      want: 'Please ensure that function call turn comes immediately after a user turn or after a function response turn.',
    },
    {
      name: 'fewer responses than calls',
      body: { contents: [user('hi'), { role: 'model', parts: [call('f'), call('g')] }, { role: 'user', parts: [resp('f')] }] },
      want: 'Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.',
    },
    {
      name: 'calls mixed with responses',
      body: { contents: [user('hi'), { role: 'model', parts: [call('f'), resp('f')] }] },
      want: 'Please ensure that function call turn contains at least one function_call part which can not be mixed with function_response parts.',
    },
    {
      name: 'function tools with search on 2.5',
      body: { contents: [user('hi')], tools: [weatherTool, { googleSearch: {} }] },
      want: 'Tool use with function calling is unsupported',
    },
    {
      name: 'IMAGE modality on a text model',
      body: { contents: [user('hi')], generationConfig: { responseModalities: ['TEXT', 'IMAGE'] } },
      want: 'Model does not support the requested response modalities: text,image',
    },
  ])('$name', ({ body, want }) => {
    const err = errorOf(body);
    expect(err?.error.code).toBe(400);
    expect(err?.error.message).toBe(want);
  });

  it('Gemini 3 with tools and search needs include_server_side_tool_invocations', () => {
    const body = { contents: [user('hi')], tools: [weatherTool, { googleSearch: {} }] };
    expect(errorOf(body, 'gemini-3-flash-preview')?.error.message).toBe(
      'Please enable tool_config.include_server_side_tool_invocations to use Built-in tools with Function calling.',
    );
    expect(errorOf({ ...body, toolConfig: { includeServerSideToolInvocations: true } }, 'gemini-3-flash-preview')).toBeNull();
  });

  describe('Gemini 3 thought signatures (§6)', () => {
    const history = (first: Record<string, unknown>) => ({
      contents: [user('weather?'), { role: 'model', parts: [first, call('get_weather')] }, { role: 'user', parts: [resp('get_weather'), resp('get_weather')] }],
    });

    it('rejects an unsigned first call of the current turn with the verbatim message', () => {
      expect(errorOf(history(call('get_weather')), 'gemini-3-flash-preview')?.error.message).toBe(
        'Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:get_weather` , position 2. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.',
      );
    });

    it.each(['skip_thought_signature_validator', 'context_engineering_is_the_way_to_go', Buffer.from('skip_thought_signature_validator').toString('base64'), 'CiQBsig=='])(
      'accepts signature %s',
      (sig) => {
        expect(errorOf(history(call('get_weather', sig)), 'gemini-3-flash-preview')).toBeNull();
      },
    );

    it('does not check older turns, nor Gemini 2.5', () => {
      const body = history(call('get_weather'));
      const older = { contents: [...body.contents, { role: 'model', parts: [{ text: 'done' }] }, user('thanks')] };
      expect(errorOf(older, 'gemini-3-flash-preview')).toBeNull();
      expect(errorOf(body, 'gemini-2.5-flash')).toBeNull();
    });
  });
});

describe('over HTTP', () => {
  let emu: Emulator;
  beforeAll(async () => {
    emu = await startEmulator({ inlineLimitBytes: 1000 });
  });
  afterAll(() => emu.close());

  it('rejects an unknown field before any scripted reply is consumed', async () => {
    emu.enqueue({ status: 500, body: {} });
    const res = await post(`${emu.url}/v1beta/models/gemini-2.5-flash:generateContent`, { contents: [user('hi')], foo: 1 });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.details[0]['@type']).toBe('type.googleapis.com/google.rpc.BadRequest');
    expect((await post(`${emu.url}/v1beta/models/gemini-2.5-flash:generateContent`, { contents: [user('hi')] })).status).toBe(500);
  });

  it('rejects malformed JSON and bodies over the inline limit', async () => {
    const bad = await post(`${emu.url}/v1beta/models/gemini-2.5-flash:generateContent`, '{not json');
    expect(bad.status).toBe(400);
    const big = await post(`${emu.url}/v1beta/models/gemini-2.5-flash:generateContent`, { contents: [user('x'.repeat(2000))] });
    expect(big.status).toBe(400);
    expect(((await big.json()) as any).error.message).toBe('Request payload size exceeds the limit: 1000 bytes.');
  });
});
