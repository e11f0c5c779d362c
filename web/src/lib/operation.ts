/**
 * Operations (spec "Task"): the task-detail text format ([`parse`], [`print`]) and the
 * save rules of spec section 5 ([`validate`]), a faithful copy of the server's
 * `gemba_shared::operation` (`shared/src/operation.rs`, whose module docs describe the
 * format and the rules' order). `operation.shared.test.ts` runs this copy on the corpus
 * the Rust code answered (`api/generated/operation-cases.json`), so they cannot drift.
 *
 * Where JavaScript and Rust differ, this follows Rust:
 * - whitespace is Unicode White_Space (Rust's `char::is_whitespace`, `\p{White_Space}`),
 *   not JavaScript's `\s`/`trim()`, which also take U+FEFF and leave U+0085; names and
 *   lines are also trimmed of byte-order marks (U+FEFF), as `clean` does in Rust;
 * - control characters are general category Cc (Rust's `char::is_control`);
 * - lines break only at `\r\n`, `\n` and `\r` (not U+2028, U+0085);
 * - lengths in messages count code points (`chars().count()`), not UTF-16 units.
 *
 * Pure: no input makes a function here throw.
 */
import type { Operation, Process, Step } from '@/api/generated';

/** Most processes in one operation (spec section 9). */
export const MAX_PROCESSES = 2;

/** The line markers of the text format. */
export const STEP_MARKER = ':';
export const SUBSTEP_MARKER = ';';
export const PROCESS_MARKER = '~';

export const EMPTY_STEPS_MESSAGE = 'Please fill the empty steps!';
/** Ours: the spec has no message for an empty process name. */
export const EMPTY_PROCESS_NAME_MESSAGE = 'Please fill the empty process names!';
export const STEP_WITHOUT_SUBSTEP_MESSAGE = 'Each step must have atleast one sub-step!';
export const SAME_PROCESS_NAMES_MESSAGE = 'Processes name cannot be same!';
export const SAME_STEP_NAMES_MESSAGE = 'Steps name cannot be same!';
export const SAME_SUBSTEPS_MESSAGE = 'Substeps cannot be same!';
export const STEP_IS_SUBSTEP_MESSAGE = 'Step and Substep name cannot be same!';
export const NO_PROCESS_MESSAGE = 'An operation must contain atleast one process!';
export const PROCESS_WITHOUT_STEP_MESSAGE = 'A process must contain atleast one step!';
export const TOO_MANY_PROCESSES_MESSAGE = 'An operation can contain at most 2 process!';

/** What a name with invalid characters belongs to, for its message. */
export type NameKind = 'process' | 'step' | 'substep';

const KIND_LABEL: Record<NameKind, string> = { process: 'Process', step: 'Step', substep: 'Substep' };

/** 'Step name "{name}" contains invalid characters (~).' and its sub-step and process forms. */
export const invalidCharactersMessage = (kind: NameKind, name: string) =>
  `${KIND_LABEL[kind]} name "${name}" contains invalid characters (~).`;

/** The name of the default process appended at position `n` (1-based). */
export const defaultProcessName = (n: number) => `Process ${n}`;

/** What `parse` answers: the operation, or the 1-based line it cannot read and why. */
export type ParseResult = { ok: true; operation: Operation } | { ok: false; line: number; message: string };

const SPACE = /^[\p{White_Space}\uFEFF]$/u;
const ANY_SPACE = /[\p{White_Space}\uFEFF]/gu;
const INVALID = /[~`\p{Cc}]/u;

/** Whitespace and byte-order marks are all in the Basic Multilingual Plane, so one UTF-16
 * unit is one such character (a surrogate never is one). */
const isSpaceAt = (s: string, i: number) => SPACE.test(s.charAt(i));

/** A name or line without its surrounding whitespace and byte-order marks (Rust's `clean`).
 * A loop, not a `^…+|…+$` pattern, which takes quadratic time on long inner runs of spaces. */
export function clean(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && isSpaceAt(s, start)) start += 1;
  while (end > start && isSpaceAt(s, end - 1)) end -= 1;
  return s.slice(start, end);
}

/** Whether a name is empty once cleaned (what the save rules call empty). */
export const isBlank = (s: string) => clean(s) === '';

/** A line shortened for a message: at most 60 characters (code points) between quotes. */
function quoted(line: string): string {
  const MAX = 60;
  const chars = [...line];
  return chars.length <= MAX ? `"${line}"` : `"${chars.slice(0, MAX).join('')}…"`;
}

/** Reads the task-detail text format (see `shared/src/operation.rs`). */
export function parse(text: string): ParseResult {
  const lines = text
    .split(/\r\n|\n|\r/)
    .map((l, i) => [i + 1, clean(l)] as const)
    .filter(([, l]) => l !== '');
  const first = lines[0];
  if (!first) {
    return { ok: false, line: 1, message: "the text is empty: its first line must be the operation's name" };
  }
  const processes: Process[] = [];
  // The steps since the last process line, closed by the next one.
  let steps: Step[] = [];
  for (const [n, line] of lines.slice(1)) {
    // The markers are ASCII, so the last UTF-16 unit is the last character when it is one.
    const marker = line.slice(-1);
    const item = clean(line.slice(0, -1));
    if (marker === STEP_MARKER) {
      steps.push({ name: item, substeps: [] });
    } else if (marker === SUBSTEP_MARKER) {
      const step = steps[steps.length - 1];
      if (!step) return { ok: false, line: n, message: `the sub-step ${quoted(line)} has no step above it in its process` };
      step.substeps.push(item);
    } else if (marker === PROCESS_MARKER) {
      processes.push({ name: item, steps });
      steps = [];
    } else {
      return {
        ok: false,
        line: n,
        message: `${quoted(line)} ends in none of ':' (a step), ';' (a sub-step) or '~' (a process)`,
      };
    }
  }
  if (steps.length > 0) {
    // The default name is never one the text gave already.
    let k = processes.length + 1;
    while (processes.some((p) => p.name === defaultProcessName(k))) k += 1;
    processes.push({ name: defaultProcessName(k), steps });
  }
  return { ok: true, operation: { name: first[1], processes } };
}

/** Writes the canonical task-detail text of `op`: one item per line, names cleaned, every
 * process closed by its `~` line, ending in a newline. */
export function print(op: Operation): string {
  const out: string[] = [clean(op.name)];
  for (const process of op.processes) {
    for (const step of process.steps) {
      out.push(clean(step.name) + STEP_MARKER);
      for (const substep of step.substeps) out.push(clean(substep) + SUBSTEP_MARKER);
    }
    out.push(clean(process.name) + PROCESS_MARKER);
  }
  return `${out.join('\n')}\n`;
}

/** A name `validate` refuses as containing invalid characters: `~`, `` ` `` or a control character. */
const hasInvalidCharacters = (name: string) => INVALID.test(clean(name));

/** A name with all its whitespace (and byte-order marks) removed, for comparing sub-steps. */
export const withoutWhitespace = (name: string) => name.replace(ANY_SPACE, '');

/** Whether `keys` holds the same key twice. */
function hasRepeats(keys: string[]): boolean {
  return new Set(keys).size !== keys.length;
}

/** The save rules of spec section 5, in the Rust module's order: the first failing rule's
 * message, or `null` when the operation may be saved. */
export function validate(op: Operation): string | null {
  const steps = op.processes.flatMap((p) => p.steps);

  if (steps.some((s) => isBlank(s.name) || s.substeps.some(isBlank))) return EMPTY_STEPS_MESSAGE;
  if (op.processes.some((p) => isBlank(p.name))) return EMPTY_PROCESS_NAME_MESSAGE;
  if (steps.some((s) => s.substeps.length === 0)) return STEP_WITHOUT_SUBSTEP_MESSAGE;
  for (const process of op.processes) {
    if (hasInvalidCharacters(process.name)) return invalidCharactersMessage('process', clean(process.name));
    for (const step of process.steps) {
      if (hasInvalidCharacters(step.name)) return invalidCharactersMessage('step', clean(step.name));
      const sub = step.substeps.find(hasInvalidCharacters);
      if (sub !== undefined) return invalidCharactersMessage('substep', clean(sub));
    }
  }
  if (hasRepeats(op.processes.map((p) => clean(p.name)))) return SAME_PROCESS_NAMES_MESSAGE;
  if (hasRepeats(steps.map((s) => clean(s.name)))) return SAME_STEP_NAMES_MESSAGE;
  if (steps.some((s) => hasRepeats(s.substeps.map(withoutWhitespace)))) return SAME_SUBSTEPS_MESSAGE;
  if (steps.some((s) => s.substeps.some((n) => clean(n) === clean(s.name)))) return STEP_IS_SUBSTEP_MESSAGE;
  if (op.processes.length === 0) return NO_PROCESS_MESSAGE;
  if (op.processes.some((p) => p.steps.length === 0)) return PROCESS_WITHOUT_STEP_MESSAGE;
  if (op.processes.length > MAX_PROCESSES) return TOO_MANY_PROCESSES_MESSAGE;
  return null;
}
