/** Cycle ids as typed or pasted (Trace shows them): split on commas and white space,
 * each once, in order. */
export function parseCycleIds(text: string): string[] {
  const out: string[] = [];
  for (const id of text.split(/[\s,]+/)) {
    const t = id.trim();
    if (t && !out.includes(t)) out.push(t);
  }
  return out;
}
