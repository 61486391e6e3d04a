/**
 * Renders one prompt version with the caller's variables into chat messages.
 *
 * Pure apart from Mustache's parse cache; runs once per prompt call. Variables are checked
 * before anything renders: a required one that is missing, or one the template does not declare
 * (unless it says `allow_extra_variables`), is a 400 whose `param` is `variables.<name>`.
 * Partials (`{{> other}}`, `{{> other@3}}`, `{{> other@production}}`) are resolved through the
 * caller's lookup before rendering; a partial contributes the text of its messages, and its
 * declared variables count as the including template's (the including template's own
 * declaration wins).
 */
import { InvalidRequestError } from '../errors.js';
import type { ChatMessage } from '../openai/chat-request.js';
import { mapMessageTexts } from './message-texts.js';
import { renderMustache } from './mustache-writer.js';
import type { PromptParams, PromptVersion } from './prompt-template.js';

/** Resolves a partial reference to a prompt version; undefined when it names nothing. */
export type PartialResolver = (ref: string) => PromptVersion | undefined;

export interface RenderedPrompt {
  model: string | undefined;
  params: PromptParams;
  messages: ChatMessage[];
  /** The variables the template saw (caller's values over defaults), for traces. */
  variables: Record<string, unknown>;
}

/** A broken partial graph: a reference to nothing, or a cycle. Found at load time. */
export class PartialError extends Error {}

/** Most partials one render may pull in (transitively); a guard against runaway graphs. */
const MAX_PARTIALS = 64;

/**
 * Every partial the version needs, transitively, by reference. Throws `PartialError` for a
 * reference that resolves to nothing or for a cycle (`a` includes `b` includes `a`).
 */
export function collectPartials(version: PromptVersion, resolve: PartialResolver): Map<string, PromptVersion> {
  const found = new Map<string, PromptVersion>();
  const visit = (v: PromptVersion, trail: string[]) => {
    for (const ref of v.partials) {
      const target = resolve(ref);
      if (!target) throw new PartialError(`partial {{> ${ref}}} in ${v.source} names no prompt version`);
      const key = `${target.template.id}@${target.template.version}`;
      if (trail.includes(key)) throw new PartialError(`partial cycle: ${[...trail, key].join(' → ')}`);
      if (found.has(ref) && found.get(ref) === target) continue;
      found.set(ref, target);
      if (found.size > MAX_PARTIALS) throw new PartialError(`more than ${MAX_PARTIALS} partials`);
      visit(target, [...trail, key]);
    }
  };
  visit(version, [`${version.template.id}@${version.template.version}`]);
  return found;
}

/** The text a prompt contributes when included as a partial: its messages' text, blank-line separated. */
export function partialText(version: PromptVersion): string {
  return version.texts.filter((t) => t.kind === 'text').map((t) => t.text).join('\n\n');
}

interface VariableRule {
  required: boolean;
  hasDefault: boolean;
  default?: unknown;
}

/** The variables a version accepts, with the partials' declarations merged in (outer wins). */
export function variableRules(version: PromptVersion, partials: ReadonlyMap<string, PromptVersion>): Map<string, VariableRule> {
  const rules = new Map<string, VariableRule>();
  const add = (v: PromptVersion, topLevel: boolean) => {
    for (const [name, spec] of Object.entries(v.template.variables ?? {})) {
      if (rules.has(name)) continue;
      const hasDefault = spec.default !== undefined;
      rules.set(name, { required: topLevel && (spec.required ?? !hasDefault), hasDefault, ...(hasDefault ? { default: spec.default } : {}) });
    }
    for (const name of v.implicitRequired) if (!rules.has(name)) rules.set(name, { required: topLevel, hasDefault: false });
    for (const name of v.implicitOptional) if (!rules.has(name)) rules.set(name, { required: false, hasDefault: false });
  };
  // Breadth first, so the including template (and then its nearest partials) declare first.
  const queue: Array<{ v: PromptVersion; topLevel: boolean }> = [{ v: version, topLevel: true }];
  const seen = new Set<PromptVersion>();
  while (queue.length > 0) {
    const { v, topLevel } = queue.shift()!;
    if (seen.has(v)) continue;
    seen.add(v);
    add(v, topLevel);
    for (const ref of v.partials) {
      const p = partials.get(ref);
      if (p) queue.push({ v: p, topLevel: topLevel && v.topLevelPartials.includes(ref) });
    }
  }
  return rules;
}

export function renderPrompt(
  version: PromptVersion,
  variables: Readonly<Record<string, unknown>>,
  resolve: PartialResolver,
): RenderedPrompt {
  const { template } = version;
  const name = `prompt '${template.id}' version ${template.version}`;
  const partials = collectPartials(version, resolve);
  const rules = variableRules(version, partials);

  // A null-prototype view: a caller's `__proto__` or `constructor` is data, never a lookup path.
  const view: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const [key, rule] of rules) if (rule.hasDefault) view[key] = rule.default;
  for (const [key, value] of Object.entries(variables)) {
    if (!rules.has(key) && !template.allow_extra_variables) {
      throw new InvalidRequestError(`Variable '${key}' is not declared by ${name}`, {
        param: `variables.${key}`,
        code: 'unknown_variable',
      });
    }
    if (value !== undefined) view[key] = value;
  }
  for (const [key, rule] of rules) {
    if (rule.required && view[key] === undefined) {
      throw new InvalidRequestError(`Missing required variable '${key}' for ${name}`, {
        param: `variables.${key}`,
        code: 'missing_variable',
      });
    }
  }

  const partialTexts = new Map<string, string>();
  for (const [ref, v] of partials) partialTexts.set(ref, partialText(v));
  const lookup = (ref: string) => partialTexts.get(ref);
  const messages = mapMessageTexts(template.messages, (text) => renderMustache(text, view, lookup));
  return { model: template.model, params: template.params ?? {}, messages, variables: { ...view } };
}
