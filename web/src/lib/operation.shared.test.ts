/**
 * The portal's copy of the operation text format and save rules answers exactly as the
 * server's `gemba_shared::operation` on a corpus (`operation-cases.json`, written from
 * `shared/src/operation.rs` by `shared/tests/export_bindings.rs`): the same operation
 * read from each text (or the same line refused), the same canonical text printed, and
 * the same save message for each text and each editor state.
 */
import type { Operation } from '@/api/generated';
import cases from '@/api/generated/operation-cases.json';

import { parse, print, validate } from './operation';

type TextCase =
  | { kind: 'text'; text: string; operation: Operation; printed: string; message: string | null }
  | { kind: 'text'; text: string; error_line: number };
type OperationCase = { kind: 'operation'; operation: Operation; message: string | null };
type Case = TextCase | OperationCase;

const all = cases as Case[];
const texts = all.filter((c): c is TextCase => c.kind === 'text');
const operations = all.filter((c): c is OperationCase => c.kind === 'operation');

test('the corpus has refused texts, read texts and editor states, and every save message', () => {
  expect(texts.filter((c) => 'error_line' in c).length).toBeGreaterThan(10);
  expect(texts.filter((c) => !('error_line' in c)).length).toBeGreaterThan(10);
  expect(operations.length).toBeGreaterThan(100);
  const messages = new Set(all.flatMap((c) => ('message' in c ? [c.message?.replace(/".*"/s, '"…"') ?? null] : [])));
  expect(messages).toEqual(
    new Set([
      null,
      'Please fill the empty steps!',
      'Please fill the empty process names!',
      'Each step must have atleast one sub-step!',
      'Process name "…" contains invalid characters (~).',
      'Step name "…" contains invalid characters (~).',
      'Substep name "…" contains invalid characters (~).',
      'Processes name cannot be same!',
      'Steps name cannot be same!',
      'Substeps cannot be same!',
      'Step and Substep name cannot be same!',
      'An operation must contain atleast one process!',
      'A process must contain atleast one step!',
      'An operation can contain at most 2 process!',
    ]),
  );
});

test.each(texts.map((c, i) => [i, JSON.stringify(c.text).slice(0, 60), c] as const))(
  'text %i (%s) reads, prints and validates as on the server',
  (_i, _t, c) => {
    const got = parse(c.text);
    if ('error_line' in c) {
      expect(got).toMatchObject({ ok: false, line: c.error_line });
      return;
    }
    expect(got).toEqual({ ok: true, operation: c.operation });
    if (!got.ok) return;
    expect(print(got.operation)).toBe(c.printed);
    expect(validate(got.operation)).toBe(c.message);
    // What prints reads back the same (the module's round trip).
    expect(parse(c.printed)).toEqual({ ok: true, operation: c.operation });
  },
);

test.each(operations.map((c, i) => [i, c] as const))('editor state %i validates as on the server', (_i, c) => {
  expect(validate(c.operation)).toBe(c.message);
});
