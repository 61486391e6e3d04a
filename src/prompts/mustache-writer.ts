/**
 * The Mustache writer prompts render with: the reference implementation (`mustache`) with HTML
 * escaping off, since prompts are text for a model, not HTML (`{{x}}` and `{{{x}}}` are the
 * same). A value that is neither a string nor a number (an object, an array, a boolean) renders
 * as JSON in a value tag, instead of `[object Object]`. Sections, inverted sections, partials and
 * set-delimiter tags behave as the Mustache spec says.
 *
 * One writer for the process, with its parse cache; the store clears it when it reloads, so
 * the cache holds only templates that are (or were just) on disk.
 */
import Mustache from 'mustache';

export type MustacheToken = [string, string, number, number, ...unknown[]];

class PromptWriter extends Mustache.Writer {
  // Only value tags reach these two; both print the same text (escaping is off).
  // (Mustache skips a tag whose value is undefined; the typings say `string`.)
  override escapedValue(token: string[], context: Mustache.Context): string {
    return valueText(context.lookup(token[1]!)) as string;
  }
  override unescapedValue(token: string[], context: Mustache.Context): string {
    return valueText(context.lookup(token[1]!)) as string;
  }
}

function valueText(value: unknown): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  return JSON.stringify(value);
}

export const mustacheWriter = new PromptWriter();

/** Parses (and caches) a template; throws with Mustache's message on unclosed or bad tags. */
export function parseMustache(text: string): MustacheToken[] {
  return mustacheWriter.parse(text) as unknown as MustacheToken[];
}

/** Renders with a partial lookup; the lookup answers the partial's text or undefined. */
export function renderMustache(text: string, view: object, partial: (name: string) => string | undefined): string {
  return mustacheWriter.render(text, view, partial);
}
