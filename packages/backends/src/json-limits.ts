/** Deepest JSON nesting accepted from a platform (flow graphs and replies stay far below it). */
export const MAX_JSON_DEPTH = 256;

/**
 * `JSON.parse` for untrusted platform replies: refuses text nested deeper than `maxDepth` (arrays and objects) before
 * parsing it, so a "JSON bomb" of deep nesting can never reach code that walks or serialises the value recursively
 * (`JSON.stringify` of a 100,000-deep array overflows the stack).
 */
export function parseJsonBounded(text: string, maxDepth = MAX_JSON_DEPTH): unknown {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 92 /* \ */) index++;
      else if (code === 34 /* " */) inString = false;
    } else if (code === 34) inString = true;
    else if (code === 91 /* [ */ || code === 123 /* { */) {
      if (++depth > maxDepth) throw new SyntaxError(`JSON nested deeper than ${maxDepth} levels`);
    } else if (code === 93 /* ] */ || code === 125 /* } */) depth--;
  }
  return JSON.parse(text);
}
