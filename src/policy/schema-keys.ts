import type { z } from "zod";
import type { KeyPath } from "./yaml-source.js";

// Finds the keys a mapping at some path may hold, by walking the zod schema itself, so error
// messages can suggest the key a typo meant without a second hand-kept list drifting from it.

type Def = { type: string; shape?: Record<string, z.ZodType>; innerType?: z.ZodType; in?: z.ZodType; out?: z.ZodType; element?: z.ZodType };

function defOf(schema: z.ZodType): Def {
  return (schema as unknown as { _zod: { def: Def } })._zod.def;
}

/** Strips wrappers (default, optional, pipes) down to the schema that describes the value. */
function unwrap(schema: z.ZodType): z.ZodType {
  for (let depth = 0; depth < 16; depth++) {
    const def = defOf(schema);
    if ((def.type === "default" || def.type === "optional" || def.type === "nullable" || def.type === "prefault") && def.innerType) schema = def.innerType;
    else if (def.type === "pipe" && def.out && defOf(def.out).type !== "transform") schema = def.out;
    else if (def.type === "pipe" && def.in) schema = def.in;
    else return schema;
  }
  return schema;
}

export function allowedKeysAt(root: z.ZodType, path: KeyPath): string[] {
  let schema: z.ZodType | undefined = unwrap(root);
  for (const step of path) {
    if (schema === undefined) return [];
    const def = defOf(schema);
    if (def.type === "object" && typeof step === "string") schema = def.shape?.[step];
    else if (def.type === "array" && typeof step === "number") schema = def.element;
    else return [];
    if (schema !== undefined) schema = unwrap(schema);
  }
  if (schema === undefined) return [];
  const def = defOf(schema);
  return def.type === "object" && def.shape ? Object.keys(def.shape) : [];
}
