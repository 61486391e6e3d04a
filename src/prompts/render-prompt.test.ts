import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../errors.js';
import { parsePromptTemplate, type PromptVersion } from './prompt-template.js';
import { collectPartials, PartialError, renderPrompt } from './render-prompt.js';

function version(doc: Record<string, unknown>): PromptVersion {
  const result = parsePromptTemplate({ version: 1, ...doc }, `${String(doc.id)}/1.json`);
  if (!result.ok) throw new Error(`${result.problem.path}: ${result.problem.message}`);
  return result.version;
}

/** A template with one user message. */
const one = (content: string, extra: Record<string, unknown> = {}) => version({ id: 'p', messages: [{ role: 'user', content }], ...extra });

const snippets = new Map<string, PromptVersion>([
  ['tone', version({ id: 'tone', messages: [{ role: 'system', content: 'Be {{tone}}.' }], variables: { tone: { default: 'kind' } } })],
  ['sign', version({ id: 'sign', messages: [{ role: 'system', content: '-- {{signer}}' }] })],
  ['two', version({ id: 'two', messages: [{ role: 'system', content: 'A' }, { role: 'user', content: [{ type: 'text', text: 'B' }] }] })],
  ['nested', version({ id: 'nested', messages: [{ role: 'system', content: '[{{> tone}}]' }] })],
]);
const resolve = (ref: string) => snippets.get(ref);

const userText = (v: PromptVersion, variables: Record<string, unknown>) => {
  const m = renderPrompt(v, variables, resolve).messages[0]!;
  return 'content' in m ? m.content : undefined;
};

describe('renderPrompt', () => {
  it.each<{ name: string; template: PromptVersion; variables: Record<string, unknown>; want: unknown }>([
    { name: 'plain variable', template: one('Hello {{name}}!'), variables: { name: 'Ada' }, want: 'Hello Ada!' },
    { name: 'no escaping of HTML', template: one('Q: {{q}}'), variables: { q: '<b>"a" & \'b\'</b>' }, want: 'Q: <b>"a" & \'b\'</b>' },
    { name: 'triple mustache is the same', template: one('{{{q}}}|{{&q}}'), variables: { q: '<i>&' }, want: '<i>&|<i>&' },
    { name: 'number and boolean values', template: one('{{n}} {{b}}'), variables: { n: 3.5, b: false }, want: '3.5 false' },
    { name: 'object in a value tag renders as JSON', template: one('data={{d}}'), variables: { d: { a: [1, 'x'] } }, want: 'data={"a":[1,"x"]}' },
    { name: 'dotted name', template: one('{{user.name}} ({{user.age}})'), variables: { user: { name: 'Ada', age: 36 } }, want: 'Ada (36)' },
    {
      name: 'section over a list',
      template: one('{{#items}}- {{title}}\n{{/items}}'),
      variables: { items: [{ title: 'a' }, { title: 'b' }] },
      want: '- a\n- b\n',
    },
    { name: 'section absent renders nothing', template: one('A{{#ctx}} [{{ctx}}]{{/ctx}}B'), variables: {}, want: 'AB' },
    { name: 'section present', template: one('A{{#ctx}} [{{ctx}}]{{/ctx}}B'), variables: { ctx: 'x' }, want: 'A [x]B' },
    { name: 'inverted section', template: one('{{^items}}none{{/items}}'), variables: { items: [] }, want: 'none' },
    { name: 'comment dropped', template: one('a{{! note }}b'), variables: {}, want: 'ab' },
    { name: 'set delimiters', template: one('{{=<% %>=}}<% x %> {{x}}'), variables: { x: 1 }, want: '1 {{x}}' },
    { name: 'default used', template: one('{{lang}}', { variables: { lang: { default: 'en' } } }), variables: {}, want: 'en' },
    { name: 'caller wins over default', template: one('{{lang}}', { variables: { lang: { default: 'en' } } }), variables: { lang: 'fr' }, want: 'fr' },
    {
      name: 'optional variable without default renders empty',
      template: one('[{{x}}]', { variables: { x: { required: false } } }),
      variables: {},
      want: '[]',
    },
    { name: 'partial with its default', template: one('{{> tone}} Hi'), variables: {}, want: 'Be kind. Hi' },
    { name: 'partial sees the caller variables', template: one('{{> tone}}'), variables: { tone: 'brief' }, want: 'Be brief.' },
    { name: 'nested partials', template: one('{{> nested}}'), variables: {}, want: '[Be kind.]' },
    { name: 'multi-message partial joins texts', template: one('{{> two}}'), variables: {}, want: 'A\n\nB' },
    { name: 'variable values are not re-rendered', template: one('{{x}}'), variables: { x: '{{> tone}} {{y}}' }, want: '{{> tone}} {{y}}' },
    { name: 'a caller __proto__ is plain data', template: one('[{{#x}}{{x}}{{/x}}]', { allow_extra_variables: true }), variables: JSON.parse('{"__proto__":{"x":"bad"}}'), want: '[]' },
  ])('$name', ({ template, variables, want }) => {
    expect(userText(template, variables)).toStrictEqual(want);
  });

  it('renders text parts and image URLs, leaves the rest of the message alone', () => {
    const v = version({
      id: 'vision',
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'You are {{role}}.' }] },
        {
          role: 'user',
          name: '{{role}}',
          content: [
            { type: 'text', text: 'Describe:' },
            { type: 'image_url', image_url: { url: '{{image}}', detail: 'low' } },
          ],
        },
      ],
    });
    expect(renderPrompt(v, { role: 'an expert', image: 'data:image/png;base64,AAAA' }, resolve).messages).toStrictEqual([
      { role: 'system', content: [{ type: 'text', text: 'You are an expert.' }] },
      {
        role: 'user',
        name: '{{role}}',
        content: [
          { type: 'text', text: 'Describe:' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA', detail: 'low' } },
        ],
      },
    ]);
    // The stored template is never mutated.
    expect(v.template.messages[0]).toStrictEqual({ role: 'system', content: [{ type: 'text', text: 'You are {{role}}.' }] });
  });

  it('returns model, params and the variables the template saw', () => {
    const v = one('{{q}}', { model: 'gemini-2.5-flash', params: { temperature: 0.2, max_tokens: 50 }, variables: { q: {}, lang: { default: 'en' } } });
    expect(renderPrompt(v, { q: 'hi' }, resolve)).toStrictEqual({
      model: 'gemini-2.5-flash',
      params: { temperature: 0.2, max_tokens: 50 },
      messages: [{ role: 'user', content: 'hi' }],
      variables: { lang: 'en', q: 'hi' },
    });
  });

  it.each<{ name: string; template: PromptVersion; variables: Record<string, unknown>; param: string; code: string }>([
    { name: 'missing variable used in a tag', template: one('Hi {{name}}'), variables: {}, param: 'variables.name', code: 'missing_variable' },
    {
      name: 'missing declared variable without default',
      template: one('{{#x}}{{x}}{{/x}}', { variables: { x: {} } }),
      variables: {},
      param: 'variables.x',
      code: 'missing_variable',
    },
    {
      name: 'explicitly required variable',
      template: one('{{x}}', { variables: { x: { required: true } } }),
      variables: {},
      param: 'variables.x',
      code: 'missing_variable',
    },
    { name: 'missing variable of a top-level partial', template: one('{{> sign}}'), variables: {}, param: 'variables.signer', code: 'missing_variable' },
    { name: 'undeclared variable', template: one('Hi {{name}}'), variables: { name: 'a', extra: 1 }, param: 'variables.extra', code: 'unknown_variable' },
    {
      name: 'a name used only inside a section is not a top-level variable',
      template: one('{{#items}}{{title}}{{/items}}'),
      variables: { title: 'x' },
      param: 'variables.title',
      code: 'unknown_variable',
    },
  ])('400: $name', ({ template, variables, param, code }) => {
    let caught: unknown;
    try {
      renderPrompt(template, variables, resolve);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(InvalidRequestError);
    const err = caught as InvalidRequestError;
    expect({ status: err.status, param: err.param, code: err.code }).toStrictEqual({ status: 400, param, code });
    expect(err.message).toContain(param.slice('variables.'.length));
    expect(err.message).toContain("prompt 'p' version 1");
  });

  it('a partial inside a section does not make its variables required', () => {
    expect(userText(one('{{#show}}{{> sign}}{{/show}}'), {})).toBe('');
    expect(userText(one('{{#show}}{{> sign}}{{/show}}'), { show: true, signer: 'Ada' })).toBe('-- Ada');
  });

  it('allow_extra_variables lets undeclared variables through to the tags', () => {
    expect(userText(one('{{#extra}}+{{extra}}{{/extra}}', { allow_extra_variables: true, variables: {} }), { extra: 'x', other: 1 })).toBe('+x');
  });
});

describe('collectPartials', () => {
  it('refuses a reference to nothing and a cycle', () => {
    expect(() => collectPartials(one('{{> nope}}'), resolve)).toThrow(new PartialError('partial {{> nope}} in p/1.json names no prompt version'));
    const a = version({ id: 'a', messages: [{ role: 'user', content: '{{> b}}' }] });
    const b = version({ id: 'b', messages: [{ role: 'user', content: '{{#x}}{{> a}}{{/x}}' }] });
    const graph = new Map([
      ['a', a],
      ['b', b],
    ]);
    expect(() => collectPartials(a, (ref) => graph.get(ref))).toThrow(new PartialError('partial cycle: a@1 → b@1 → a@1'));
  });
});
