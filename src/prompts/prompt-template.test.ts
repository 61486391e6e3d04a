import { describe, expect, it } from 'vitest';
import { parsePromptTemplate } from './prompt-template.js';

const good = { messages: [{ role: 'user', content: 'Hi {{name}}' }] };

describe('parsePromptTemplate', () => {
  it('takes id and version from the file location and reads what rendering needs', () => {
    const result = parsePromptTemplate(
      {
        model: 'gemini-2.5-flash',
        messages: [
          { role: 'system', content: '{{> tone}}{{#ctx}}Context: {{ctx}}{{/ctx}}' },
          { role: 'user', content: [{ type: 'text', text: '{{question}} {{user.name}}' }, { type: 'image_url', image_url: { url: '{{img}}' } }] },
        ],
        params: { temperature: 0.3, response_format: { type: 'json_object' } },
        variables: { question: { description: 'what the user asked' }, img: { default: 'https://example.com/a.png' } },
      },
      'support/2.yaml',
      { id: 'support', version: 2 },
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const v = result.version;
    expect(v.template.id).toBe('support');
    expect(v.template.version).toBe(2);
    expect(v.source).toBe('support/2.yaml');
    expect(v.texts.map((t) => t.path)).toStrictEqual(['messages[0].content', 'messages[1].content[0].text', 'messages[1].content[1].image_url.url']);
    expect(v.implicitRequired).toStrictEqual(['user']);
    expect(v.implicitOptional).toStrictEqual(['ctx']);
    expect(v.partials).toStrictEqual(['tone']);
    expect(v.topLevelPartials).toStrictEqual(['tone']);
  });

  it.each<{ name: string; doc: unknown; path: string; message: RegExp }>([
    { name: 'not an object', doc: [good], path: '', message: /must be an object/ },
    { name: 'no messages', doc: {}, path: 'messages', message: /expected array/ },
    { name: 'empty messages', doc: { messages: [] }, path: 'messages', message: /too small|>=1/i },
    { name: 'unknown role', doc: { messages: [{ role: 'robot', content: 'x' }] }, path: 'messages[0].role', message: /./ },
    { name: 'unknown top-level field', doc: { ...good, temprature: 1 }, path: 'temprature', message: /unknown field/ },
    { name: 'unknown param', doc: { ...good, params: { temprature: 1 } }, path: 'params.temprature', message: /unknown field/ },
    { name: 'param out of range', doc: { ...good, params: { temperature: 9 } }, path: 'params.temperature', message: /2/ },
    { name: 'messages inside params', doc: { ...good, params: { messages: [] } }, path: 'params.messages', message: /unknown field/ },
    { name: 'bad variable name', doc: { ...good, variables: { 'a-b': {} } }, path: 'variables.a-b', message: /identifiers/ },
    { name: 'unknown variable field', doc: { ...good, variables: { a: { requried: true } } }, path: 'variables.a.requried', message: /unknown field/ },
    { name: 'unclosed section', doc: { messages: [{ role: 'user', content: 'a {{#x}} b' }] }, path: 'messages[0].content', message: /invalid Mustache: Unclosed section "x"/ },
    {
      name: 'mismatched section in a text part',
      doc: { messages: [{ role: 'user', content: [{ type: 'text', text: '{{#a}}{{/b}}' }] }] },
      path: 'messages[0].content[0].text',
      message: /invalid Mustache: Unclosed section "a"/,
    },
    { name: 'unclosed tag', doc: { messages: [{ role: 'user', content: 'a {{x' }] }, path: 'messages[0].content', message: /invalid Mustache: Unclosed tag/ },
    { name: 'id that disagrees with the directory', doc: { ...good, id: 'other' }, path: 'id', message: /does not match/ },
    { name: 'version that disagrees with the file name', doc: { ...good, version: 3 }, path: 'version', message: /does not match/ },
  ])('reports $name with the file and JSON path', ({ doc, path, message }) => {
    const result = parsePromptTemplate(doc, 'greet/1.json', { id: 'greet', version: 1 });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problem.file).toBe('greet/1.json');
    expect(result.problem.path).toBe(path);
    expect(result.problem.message).toMatch(message);
  });
});
