/**
 * The task's save rules beyond the operation's own (`lib/operation.ts` `validate`), as
 * the server checks them (`cloud/src/http/tasks/rules.rs`), with its messages, so the
 * portal sends nothing the server would refuse for these reasons: the task name, the
 * parameters' ranges, the model version, a translation. Each answers the message, or
 * `null`. Lengths count code points, as Rust's `chars().count()`.
 */
import type { Operation, TaskParameters } from '@/api/generated';
import { clean } from '@/lib/operation';
import { wholeNumber } from '@/lib/validate';

/** Longest task and language name, and translation (`MAX_NAME` of the server). */
export const MAX_TASK_NAME = 100;
/** The largest value of the server's unsigned 32-bit fields (frames). */
export const MAX_U32 = 4_294_967_295;
/** The default maximum cycle time: the largest safe integer, i.e. no limit (spec section 9). */
export const NO_CYCLE_LIMIT = Number.MAX_SAFE_INTEGER;

const CONTROL = /\p{Cc}/u;
const length = (s: string) => [...s].length;

/** The server's `check_name(field, label, name)`: required, at most 100 characters, one line. */
export function checkName(label: string, name: string): string | null {
  const n = clean(name);
  if (n === '') return `${label} is required!`;
  if (length(n) > MAX_TASK_NAME) return `${label} must be at most ${MAX_TASK_NAME} characters.`;
  if (CONTROL.test(n)) return `${label} cannot contain line breaks or control characters.`;
  return null;
}

export const checkTaskName = (name: string) => checkName('Task name', name);

// ----- parameters --------------------------------------------------------------------

/** The parameter form's text fields, as typed. */
export type ParameterTexts = {
  maximum_cycle_time: string;
  minimum_cycle_time: string;
  min_share: string;
  temporal_smoothness: string;
  verify_threshold: string;
  background_time: string;
};

export type ParameterErrors = Partial<Record<keyof ParameterTexts, string>>;

/** A number typed in `text` (decimal notation), else null. */
function decimal(text: string): number | null {
  const t = text.trim();
  if (!/^[+-]?(\d+\.?\d*|\.\d+)$/.test(t)) return null;
  const n = Number(t);
  return Number.isFinite(n) ? n : null;
}

/**
 * The telemetry and training numbers of `texts` over `base` (whose other fields, the
 * flags and step choices, the caller sets), or the message of each field in error. An
 * empty maximum cycle time is no limit.
 */
export function readParameters(
  texts: ParameterTexts,
  base: TaskParameters,
): { ok: true; value: TaskParameters } | { ok: false; errors: ParameterErrors } {
  const errors: ParameterErrors = {};
  const minimum = wholeNumber(texts.minimum_cycle_time, Number.MIN_SAFE_INTEGER, NO_CYCLE_LIMIT);
  if (minimum === null) errors.minimum_cycle_time = 'The minimum cycle time must be a whole number of seconds.';
  else if (minimum < 0) errors.minimum_cycle_time = 'The minimum cycle time cannot be negative.';
  const maximum = texts.maximum_cycle_time.trim() === '' ? NO_CYCLE_LIMIT : wholeNumber(texts.maximum_cycle_time, Number.MIN_SAFE_INTEGER, NO_CYCLE_LIMIT);
  if (maximum === null) errors.maximum_cycle_time = 'The maximum cycle time must be a whole number of seconds, or empty for no limit.';
  else if (minimum !== null && maximum < minimum) errors.maximum_cycle_time = 'The maximum cycle time cannot be below the minimum cycle time.';
  const share = decimal(texts.min_share);
  if (share === null || share < 0 || share > 1) {
    errors.min_share = 'The share of steps required to end a cycle must be between 0 and 1.';
  }
  const frames = (text: string, min: number, below: string, key: keyof ParameterTexts, what: string) => {
    const n = wholeNumber(text, Number.MIN_SAFE_INTEGER, MAX_U32);
    if (n === null) errors[key] = `${what} must be a whole number of frames.`;
    else if (n < min) errors[key] = below;
    return n ?? 0;
  };
  const smoothness = frames(texts.temporal_smoothness, 1, 'The temporal smoothness must be at least 1 frame.', 'temporal_smoothness', 'The temporal smoothness');
  const verify = frames(texts.verify_threshold, 1, 'The verify threshold must be at least 1 frame.', 'verify_threshold', 'The verify threshold');
  const background = frames(texts.background_time, 0, 'The background time cannot be negative.', 'background_time', 'The background time');
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return {
    ok: true,
    value: {
      telemetryParams: {
        ...base.telemetryParams,
        maximum_cycle_time: maximum!,
        minimum_cycle_time: minimum!,
        min_percentage_of_steps_required_to_end_cycle: share!,
        temporal_smoothness: smoothness,
      },
      trainingParams: { ...base.trainingParams, verify_threshold: verify, background_time: background },
    },
  };
}

/** The model version typed: empty (none), or a positive whole number. */
export function readModelVersion(text: string): { ok: true; value: number | null } | { ok: false; message: string } {
  if (text.trim() === '') return { ok: true, value: null };
  const n = wholeNumber(text, 1, Number.MAX_SAFE_INTEGER);
  return n === null ? { ok: false, message: 'The model version must be a positive whole number.' } : { ok: true, value: n };
}

// ----- translations ------------------------------------------------------------------

export type TranslatableName = { kind: 'step' | 'substep'; name: string };

/** The names a translation covers: every step and sub-step name of `op`, once each, in
 * the operation's order (the translation is keyed by the English name). */
export function translatableNames(op: Operation): TranslatableName[] {
  const seen = new Set<string>();
  const out: TranslatableName[] = [];
  const add = (kind: TranslatableName['kind'], raw: string) => {
    const name = clean(raw);
    if (name === '' || seen.has(name)) return;
    seen.add(name);
    out.push({ kind, name });
  };
  for (const p of op.processes) {
    for (const s of p.steps) {
      add('step', s.name);
      s.substeps.forEach((n) => add('substep', n));
    }
  }
  return out;
}

export const NOTHING_TRANSLATED_MESSAGE = 'Please translate at least one step or sub-step!';

/**
 * The translation a form's fields make (a blank field is left out: that name shows in
 * English), checked as the server checks it: a language, at least one name, each
 * translation without `~`, `` ` `` or control characters and at most 100 characters.
 */
export function readTranslation(
  language: string,
  fields: Record<string, string>,
): { ok: true; language: string; translation: Record<string, string> } | { ok: false; field: 'language' | 'names'; message: string } {
  const lang = checkName('The language', language);
  if (lang) return { ok: false, field: 'language', message: lang };
  const translation: Record<string, string> = {};
  for (const [from, to] of Object.entries(fields)) {
    const t = clean(to);
    if (t === '') continue;
    if (/[~`\p{Cc}]/u.test(t)) return { ok: false, field: 'names', message: `Translation "${t}" contains invalid characters (~).` };
    if (length(t) > MAX_TASK_NAME) return { ok: false, field: 'names', message: `A translation must be at most ${MAX_TASK_NAME} characters.` };
    translation[from] = t;
  }
  if (Object.keys(translation).length === 0) return { ok: false, field: 'names', message: NOTHING_TRANSLATED_MESSAGE };
  return { ok: true, language: clean(language), translation };
}

/** `name` in the chosen language: its translation, or the English name without one. */
export const shownName = (name: string, translation: Record<string, string> | null) => translation?.[clean(name)] ?? name;
