/**
 * The one schema of a prompt template, and its parse into a servable `PromptVersion`.
 *
 * Pure; runs once per file when the store loads (never per request). A template is
 * `{id, version, model?, messages, params?, variables?, allow_extra_variables?}`: `messages` are
 * OpenAI chat messages whose text (and image URLs) may hold Mustache tags, `params` any other
 * chat-completions field. Messages and params are checked against the public chat-completions
 * schema itself (`openai/chat-request.ts`), so a template that could never make a valid request
 * is refused when it is loaded, with the JSON path of the offending field, not when it is called.
 */
import { z } from 'zod';
import { ChatCompletionRequestSchema, ChatMessage } from '../openai/chat-request.js';
import { formatParam } from '../openai/parse-chat-request.js';
import { analyzeTemplateText, type TextAnalysis } from './analyze-template.js';
import { listMessageTexts, type TextKind } from './message-texts.js';

/** Prompt ids name a directory: letters, digits, `.`, `_`, `-`, starting with a letter or digit. */
export const PROMPT_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
/** Label names, e.g. `production`, `staging`, `canary-2`. */
export const LABEL_NAME = /^[A-Za-z][A-Za-z0-9._-]{0,63}$/;
/** Variable names are plain identifiers (Mustache dotted names reach into their values). */
export const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

const VariableSpec = z.strictObject({
  description: z.string().optional(),
  /** Any JSON value; used when the caller leaves the variable out. */
  default: z.unknown().optional(),
  /** Defaults to true when there is no `default`. */
  required: z.boolean().optional(),
});

/** Every chat-completions field but `messages` and `model` (which the template has at top level). */
const Params = ChatCompletionRequestSchema.omit({ messages: true, model: true }).partial();

export const PromptTemplateSchema = z.strictObject({
  id: z.string().regex(PROMPT_ID, 'id: 1-128 letters, digits, ".", "_" or "-", starting with a letter or digit'),
  version: z.number().int().positive(),
  description: z.string().optional(),
  model: z.string().min(1).optional(),
  messages: z.array(ChatMessage).min(1),
  params: Params.optional(),
  variables: z
    .record(z.string().regex(VARIABLE_NAME, 'variable names are identifiers: letters, digits and "_"'), VariableSpec)
    .optional(),
  /** Accept variables the template does not declare (they are then available to its tags). */
  allow_extra_variables: z.boolean().optional(),
});

export type PromptTemplate = z.infer<typeof PromptTemplateSchema>;
export type PromptParams = z.infer<typeof Params>;

/** Where a template string sits in the template, e.g. `messages[0].content[1].text`. */
export interface TemplateText {
  path: string;
  text: string;
  kind: TextKind;
}

/** A validated template plus what rendering needs, computed once at load. */
export interface PromptVersion {
  template: PromptTemplate;
  /** Every string that holds Mustache tags, in message order. */
  texts: TemplateText[];
  /** Names the template's own tags need at top level and that `variables` does not declare. */
  implicitRequired: string[];
  /** Section names (`{{#x}}`, `{{^x}}`) used at top level: optional variables. */
  implicitOptional: string[];
  /** Prompt ids named by `{{> partial}}` tags (with any `@version`/`@label` suffix). */
  partials: string[];
  /** Top-level partials: their variables count as the template's own. */
  topLevelPartials: string[];
  /** Where the template came from (`support-reply/3.yaml`), for messages. */
  source: string;
}

/** An invalid template: the file, the JSON path inside it, and what is wrong. */
export interface TemplateProblem {
  file: string;
  path: string;
  message: string;
}

export type ParseTemplateResult = { ok: true; version: PromptVersion } | { ok: false; problem: TemplateProblem };

/**
 * Validates a parsed JSON/YAML document as a template. `expected` carries the id and version
 * the file's location implies; when the document names them too they must agree.
 */
export function parsePromptTemplate(
  doc: unknown,
  source: string,
  expected: { id?: string; version?: number } = {},
): ParseTemplateResult {
  const fail = (path: string, message: string): ParseTemplateResult => ({ ok: false, problem: { file: source, path, message } });
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return fail('', 'a template must be an object');
  const record = doc as Record<string, unknown>;
  for (const key of ['id', 'version'] as const) {
    const want = expected[key];
    if (want !== undefined && record[key] !== undefined && record[key] !== want) {
      return fail(key, `${key} ${JSON.stringify(record[key])} does not match the file's location (${JSON.stringify(want)})`);
    }
  }
  const withDefaults = { ...record, ...(expected.id !== undefined ? { id: expected.id } : {}), ...(expected.version !== undefined ? { version: expected.version } : {}) };
  const parsed = PromptTemplateSchema.safeParse(withDefaults);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const keys = issue.code === 'unrecognized_keys' ? [issue.keys[0]!] : [];
    const message =
      issue.code === 'unrecognized_keys' ? 'unknown field' : issue.code === 'invalid_key' ? (issue.issues[0]?.message ?? issue.message) : issue.message;
    return fail(formatParam([...issue.path, ...keys]), message);
  }
  const template = parsed.data;
  const texts = listMessageTexts(template.messages);
  const analyses: TextAnalysis[] = [];
  for (const t of texts) {
    try {
      analyses.push(analyzeTemplateText(t.text));
    } catch (err) {
      return fail(t.path, `invalid Mustache: ${(err as Error).message}`);
    }
  }
  const declared = new Set(Object.keys(template.variables ?? {}));
  const implicitRequired = new Set<string>();
  const implicitOptional = new Set<string>();
  const partials = new Set<string>();
  const topLevelPartials = new Set<string>();
  for (const a of analyses) {
    for (const name of a.topLevelValues) if (!declared.has(name)) implicitRequired.add(name);
    for (const name of a.topLevelSections) if (!declared.has(name) && !implicitRequired.has(name)) implicitOptional.add(name);
    for (const p of a.partials) partials.add(p);
    for (const p of a.topLevelPartials) topLevelPartials.add(p);
  }
  for (const name of implicitRequired) implicitOptional.delete(name);
  return {
    ok: true,
    version: {
      template,
      texts,
      implicitRequired: [...implicitRequired],
      implicitOptional: [...implicitOptional],
      partials: [...partials],
      topLevelPartials: [...topLevelPartials],
      source,
    },
  };
}
