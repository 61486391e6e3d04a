/**
 * `schema.safeParse(value)` for a wide object schema of which a request sets few fields, visiting
 * only the fields that are present. Same answer as zod's, field for field.
 *
 * Why: zod's object parser runs every field's schema on every parse, a present one or not, with a
 * fresh result object and issue array each time. The chat request schema has 40 fields and a
 * typical request sets three or four, so most of its validation was `optional()` answering
 * "absent" (`inst._zod.parse` of `$ZodOptional` and zod's generated object parser were the
 * largest zod items in `node bench/profile.mjs --rate 1000 --only off`).
 *
 * How: each present field is parsed by its own zod schema and the results are assembled in the
 * schema's field order, as zod assembles them. Anything else (a field refused, an unknown key, a
 * required field absent) is handed to `schema.safeParse` itself, so every error, its message,
 * path and order, is zod's own. A field that may be absent is one zod itself skips when absent
 * (`optin` and `optout` both "optional"); a schema with a check of its own (a refinement across
 * fields), a catch-all or a defaulted field is refused here, since skipping work would change
 * its answer.
 */
import type { z } from 'zod';

type ObjectSchema = z.ZodObject<z.ZodRawShape>;

interface Field {
  key: string;
  schema: z.ZodType;
  /** zod leaves the key out of the result when it is absent, and reports nothing. */
  mayBeAbsent: boolean;
}

export type PresentFieldsParser<S extends ObjectSchema> = (value: Record<string, unknown>) => z.ZodSafeParseResult<z.output<S>>;

/** A parser equivalent to `schema.safeParse` for plain objects; throws for a schema it cannot mirror. */
export function presentFieldsParser<S extends ObjectSchema>(schema: S): PresentFieldsParser<S> {
  const def = schema._zod.def;
  const catchall = def.catchall?._zod.def.type;
  if (catchall !== undefined && catchall !== 'never') throw new Error('presentFieldsParser: a catch-all schema keeps unknown keys');
  if ((def.checks?.length ?? 0) > 0) throw new Error('presentFieldsParser: a check across fields needs every field');
  const fields: Field[] = Object.entries(schema.shape as Record<string, z.ZodType>).map(([key, field]) => {
    const { optin, optout } = field._zod;
    if (optin === 'defaulted') throw new Error(`presentFieldsParser: ${key} has a default`);
    return { key, schema: field, mayBeAbsent: optin === 'optional' && optout === 'optional' };
  });
  /** zod's own answer: every case this parser does not settle by itself, errors included. */
  const whole = (value: Record<string, unknown>) => schema.safeParse(value) as z.ZodSafeParseResult<z.output<S>>;

  return (value) => {
    const out: Record<string, unknown> = {};
    let present = 0;
    for (const field of fields) {
      if (!(field.key in value)) {
        if (field.mayBeAbsent) continue;
        return whole(value);
      }
      present++;
      const result = field.schema.safeParse(value[field.key]);
      if (!result.success) return whole(value);
      out[field.key] = result.data;
    }
    // An unknown key (zod counts keys with for…in): zod reports it, or drops it from a plain object.
    if (countKeys(value) !== present) return whole(value);
    return { success: true, data: out as z.output<S> };
  };
}

function countKeys(value: object): number {
  let n = 0;
  for (const _ in value) n++;
  return n;
}
