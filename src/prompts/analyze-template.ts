/**
 * What one template string needs from its caller, read from its Mustache tokens at load time.
 *
 * Pure. Only the top level counts toward variables: inside `{{#items}}…{{/items}}` a name may
 * be a field of each item, so it is not the caller's to supply. At top level a value tag
 * (`{{name}}`, `{{{name}}}`, `{{name.field}}`) needs its first name segment; a section or
 * inverted section (`{{#name}}`, `{{^name}}`) makes its name optional (that is how a template
 * says "only if given"). Partials are collected at every depth, since all must be resolved.
 */
import { parseMustache, type MustacheToken } from './mustache-writer.js';

export interface TextAnalysis {
  topLevelValues: string[];
  topLevelSections: string[];
  /** Partial names at any depth. */
  partials: string[];
  /** Partials included at top level (their own variables are then top-level variables). */
  topLevelPartials: string[];
}

/** Throws (with Mustache's message) when the text is not a valid template. */
export function analyzeTemplateText(text: string): TextAnalysis {
  const out: TextAnalysis = { topLevelValues: [], topLevelSections: [], partials: [], topLevelPartials: [] };
  walk(parseMustache(text), 0, out);
  return {
    topLevelValues: unique(out.topLevelValues),
    topLevelSections: unique(out.topLevelSections),
    partials: unique(out.partials),
    topLevelPartials: unique(out.topLevelPartials),
  };
}

function walk(tokens: readonly MustacheToken[], depth: number, out: TextAnalysis): void {
  for (const token of tokens) {
    if (!token) continue; // Mustache leaves holes where it stripped standalone whitespace
    const [type, value] = token;
    switch (type) {
      case 'name':
      case '&': {
        const head = value.split('.')[0]!;
        if (depth === 0 && head !== '') out.topLevelValues.push(head);
        break;
      }
      case '#':
      case '^': {
        const head = value.split('.')[0]!;
        if (depth === 0 && head !== '') out.topLevelSections.push(head);
        walk(token[4] as MustacheToken[], depth + 1, out);
        break;
      }
      case '>':
        out.partials.push(value);
        if (depth === 0) out.topLevelPartials.push(value);
        break;
      default:
        break; // text, comments, set-delimiter
    }
  }
}

function unique(names: string[]): string[] {
  return [...new Set(names)];
}
