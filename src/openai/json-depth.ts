/**
 * Nesting-depth limits, checked once at the edge so nothing downstream (schema conversion,
 * `JSON.stringify` of the upstream body, telemetry) can exhaust the stack on a hostile request.
 * Iterative: a value nested 100,000 levels deep is measured without recursion. Pure.
 *
 * - `MAX_JSON_DEPTH` (512): any JSON value in a request body, and the JSON a tool call's
 *   `arguments` or a tool result carries as text;
 * - `MAX_SCHEMA_DEPTH` (64): a JSON schema (`tools[].function.parameters`,
 *   `response_format.json_schema.schema`), counted in JSON levels (objects and arrays).
 */

export const MAX_JSON_DEPTH = 512;
export const MAX_SCHEMA_DEPTH = 64;

/** Depth of a value: a scalar is 0, `{}` and `[]` are 1, `{"a":[1]}` is 2. */
interface Frame {
  value: object;
  depth: number;
  key: string | number | undefined;
  parent: Frame | undefined;
}

/**
 * The path (keys from `value` down) to the first object or array nested deeper than `maxDepth`,
 * or undefined when `value` is within the limit. Never recurses.
 */
export function findTooDeep(value: unknown, maxDepth: number): Array<string | number> | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const stack: Frame[] = [{ value, depth: 1, key: undefined, parent: undefined }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    if (frame.depth > maxDepth) return pathOf(frame);
    if (Array.isArray(frame.value)) {
      const items = frame.value as unknown[];
      for (let i = items.length - 1; i >= 0; i--) {
        const child = items[i];
        if (child !== null && typeof child === 'object') stack.push({ value: child, depth: frame.depth + 1, key: i, parent: frame });
      }
    } else {
      // Pushed last to first, so the first too-deep value found is the first in document order.
      const keys = Object.keys(frame.value);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i]!;
        const child = (frame.value as Record<string, unknown>)[key];
        if (child !== null && typeof child === 'object') stack.push({ value: child, depth: frame.depth + 1, key, parent: frame });
      }
    }
  }
  return undefined;
}

function pathOf(frame: Frame): Array<string | number> {
  const path: Array<string | number> = [];
  for (let f: Frame | undefined = frame; f?.key !== undefined; f = f.parent) path.push(f.key);
  return path.reverse();
}

/**
 * True when JSON text nests objects/arrays deeper than `maxDepth` (brackets outside strings; the
 * text need not be valid JSON). Linear; for strings that carry JSON (tool arguments, tool results).
 */
export function jsonTextTooDeep(text: string, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > maxDepth) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}
