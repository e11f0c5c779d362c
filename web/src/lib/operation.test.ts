// The cases of `shared/src/operation/tests.rs` and the spec's examples (sections 3 and 5),
// readable; `operation.shared.test.ts` runs the whole corpus the Rust code answered.
import type { Operation, Process, Step } from '@/api/generated';
import { PUMP_OPERATION, PUMP_TEXT } from '@/testing/operation';

import {
  clean,
  defaultProcessName,
  EMPTY_STEPS_MESSAGE,
  invalidCharactersMessage,
  MAX_PROCESSES,
  NO_PROCESS_MESSAGE,
  parse,
  print,
  PROCESS_WITHOUT_STEP_MESSAGE,
  SAME_PROCESS_NAMES_MESSAGE,
  SAME_STEP_NAMES_MESSAGE,
  STEP_WITHOUT_SUBSTEP_MESSAGE,
  TOO_MANY_PROCESSES_MESSAGE,
  validate,
} from './operation';

const step = (name: string, substeps: string[]): Step => ({ name, substeps });
const process = (name: string, steps: Step[]): Process => ({ name, steps });

const read = (text: string) => {
  const r = parse(text);
  if (!r.ok) throw new Error(`line ${r.line}: ${r.message}`);
  return r.operation;
};

const lineError = (text: string) => {
  const r = parse(text);
  return r.ok ? null : r.line;
};

test('a process line closes the steps above it; steps after the last one get a default process', () => {
  expect(read(PUMP_TEXT)).toEqual(PUMP_OPERATION);
  expect(read('Op\nA:\na;\n').processes).toEqual([process('Process 1', [step('A', ['a'])])]);
  expect(read('Op\nA:\na;\nFirst~\n').processes).toEqual([process('First', [step('A', ['a'])])]);
  expect(defaultProcessName(2)).toBe('Process 2');
});

test('a name alone has no process, which saving refuses', () => {
  expect(read('Op')).toEqual({ name: 'Op', processes: [] });
  expect(validate(read('Op'))).toBe(NO_PROCESS_MESSAGE);
});

test('print writes the canonical text, which reads back the same', () => {
  const canonical = `${PUMP_TEXT}Process 2~\n`;
  expect(print(PUMP_OPERATION)).toBe(canonical);
  expect(print(read(canonical))).toBe(canonical);
  expect(read(canonical)).toEqual(PUMP_OPERATION);
  // Names are written cleaned.
  expect(print({ name: ' Op ', processes: [process('\uFEFFP ', [step(' A\t', ['\u00A0a '])])] })).toBe('Op\nA:\na;\nP~\n');
});

test('whitespace, byte-order marks, blank lines and any line break are forgiven', () => {
  const messy =
    '\uFEFF\r\n  Assemble pump  \r\n\r\n Fit housing :\r\n\tPlace housing ;\rTighten screws;\n\n  Check seal:\n   Inspect seal;\nPre-assembly ~\nPack:\nPut in box;';
  expect(read(messy)).toEqual(PUMP_OPERATION);
});

test('markers inside names are kept: only the last character is a marker', () => {
  const op = read('Op: v2;\nA: left;:\nb:c;;\nx:~ y~\n');
  expect(op.name).toBe('Op: v2;');
  expect(op.processes).toEqual([process('x:~ y', [step('A: left;', ['b:c;'])])]);
  expect(read(print(op))).toEqual(op);
});

test('empty names are read, and left to the save rules', () => {
  const op = read('Op\n:\n;\n~\n');
  expect(op.processes).toEqual([process('', [step('', [''])])]);
  expect(validate(op)).toBe(EMPTY_STEPS_MESSAGE);
});

test('unreadable text names its line', () => {
  expect(parse('')).toEqual({ ok: false, line: 1, message: "the text is empty: its first line must be the operation's name" });
  expect(lineError(' \n\t\r\n')).toBe(1);
  expect(parse('Op\r\nA:\r\n\r\nno marker here\r\n')).toEqual({
    ok: false,
    line: 4,
    message: `"no marker here" ends in none of ':' (a step), ';' (a sub-step) or '~' (a process)`,
  });
  // A sub-step right after the name, or after the process line that closed its step.
  expect(parse('Op\na;\n')).toEqual({ ok: false, line: 2, message: 'the sub-step "a;" has no step above it in its process' });
  expect(lineError('Op\nA:\na;\nP~\nb;\n')).toBe(5);
  // Old Mac line breaks count as one each; U+2028 and U+0085 are no line breaks.
  expect(lineError('Op\rA:\rbad')).toBe(3);
  expect(read('Op\nA\u2028B:\na;\nC\u0085D:\nc;').processes[0]?.steps.map((s) => s.name)).toEqual(['A\u2028B', 'C\u0085D']);
});

test('long lines are shortened in messages, counting characters, not UTF-16 units', () => {
  const r = parse(`Op\n${'é'.repeat(500)}`);
  expect(r.ok).toBe(false);
  if (r.ok) return;
  expect(r.message).toBe(`"${'é'.repeat(60)}…" ends in none of ':' (a step), ';' (a sub-step) or '~' (a process)`);
  const at = (text: string) => {
    const e = parse(`Op\n${text}`);
    return e.ok ? '' : e.message.slice(0, e.message.indexOf(' ends'));
  };
  expect(at('😀'.repeat(60))).toBe(`"${'😀'.repeat(60)}"`);
  expect(at('😀'.repeat(61))).toBe(`"${'😀'.repeat(60)}…"`);
});

test('trimming is Rust\'s: U+0085 is whitespace, U+FEFF is trimmed as a byte-order mark, U+200B is neither', () => {
  expect(clean('\u0085\uFEFF\u2028 a b\u00A0\u3000')).toBe('a b');
  expect(clean('\u200Ba\u200B')).toBe('\u200Ba\u200B');
  // A name of U+0085 alone is blank (JavaScript's `trim` keeps it).
  expect(validate({ name: 'Op', processes: [process('P', [step('A', ['\u0085'])])] })).toBe(EMPTY_STEPS_MESSAGE);
});

const valid = (): Operation => ({
  name: 'Op',
  processes: [process('P1', [step('A', ['a', 'b']), step('B', ['a'])]), process('P2', [step('C', ['A', 'c'])])],
});

test('the spec examples pass', () => {
  expect(validate(valid())).toBeNull();
  expect(validate(PUMP_OPERATION)).toBeNull();
  expect(MAX_PROCESSES).toBe(2);
});

test("each of section 5's rules answers its message", () => {
  const withChange = (f: (o: Operation) => void) => {
    const op = valid();
    f(op);
    return validate(op);
  };
  const p = (o: Operation, i: number) => o.processes[i]!;
  const s = (o: Operation, i: number, j: number) => p(o, i).steps[j]!;
  expect(withChange((o) => void (s(o, 0, 1).name = ' '))).toBe('Please fill the empty steps!');
  expect(withChange((o) => void (s(o, 1, 0).substeps[1] = ''))).toBe('Please fill the empty steps!');
  expect(withChange((o) => void (p(o, 1).name = ''))).toBe('Please fill the empty process names!');
  expect(withChange((o) => void (s(o, 0, 1).substeps = []))).toBe('Each step must have atleast one sub-step!');
  expect(withChange((o) => void (s(o, 0, 0).name = 'A~1'))).toBe('Step name "A~1" contains invalid characters (~).');
  expect(withChange((o) => void (s(o, 0, 0).substeps[1] = ' b`2 '))).toBe('Substep name "b`2" contains invalid characters (~).');
  expect(withChange((o) => void (p(o, 1).name = 'P\n2'))).toBe('Process name "P\n2" contains invalid characters (~).');
  expect(withChange((o) => void (p(o, 1).name = 'P\u00012'))).toBe('Process name "P\u00012" contains invalid characters (~).');
  expect(withChange((o) => void (p(o, 1).name = 'P1 '))).toBe('Processes name cannot be same!');
  expect(withChange((o) => void (s(o, 1, 0).name = 'A'))).toBe('Steps name cannot be same!');
  expect(withChange((o) => void (s(o, 0, 1).name = 'A'))).toBe('Steps name cannot be same!');
  expect(withChange((o) => void (s(o, 0, 0).substeps = ['Put in box', ' Putin  box']))).toBe('Substeps cannot be same!');
  expect(withChange((o) => void s(o, 0, 0).substeps.push(' A'))).toBe('Step and Substep name cannot be same!');
  expect(withChange((o) => void (o.processes = []))).toBe('An operation must contain atleast one process!');
  expect(withChange((o) => void (p(o, 1).steps = []))).toBe('A process must contain atleast one step!');
  expect(withChange((o) => void o.processes.push(process('P3', [step('D', ['d'])])))).toBe(
    'An operation can contain at most 2 process!',
  );
});

test('sub-steps are compared with all Unicode whitespace removed (a trailing U+0085 too), but not U+200B', () => {
  const subs = (substeps: string[]) => validate({ name: 'Op', processes: [process('P', [step('A', substeps)])] });
  // U+0085 inside a name is a control character; at its end it is whitespace.
  expect(subs(['ab', 'a\u0085b'])).toBe('Substep name "a\u0085b" contains invalid characters (~).');
  expect(subs(['ab', 'ab\u0085'])).toBe('Substeps cannot be same!');
  expect(subs(['ab', 'a\uFEFFb'])).toBe('Substeps cannot be same!');
  expect(subs(['ab', 'a\u3000b'])).toBe('Substeps cannot be same!');
  expect(subs(['ab', 'a\u200Bb'])).toBeNull();
  // Step names are compared trimmed only.
  const steps = validate({ name: 'Op', processes: [process('P', [step('a b', ['x']), step('ab', ['y'])])] });
  expect(steps).toBeNull();
});

test('the first failing rule in the documented order wins', () => {
  const op = valid();
  op.processes.push(process('P1', [step('A~', [])]));
  op.processes.push(process('P4', []));
  const third = op.processes[2]!.steps[0]!;
  op.processes[0]!.steps[0]!.name = '';
  expect(validate(op)).toBe(EMPTY_STEPS_MESSAGE);
  op.processes[0]!.steps[0]!.name = 'A';
  expect(validate(op)).toBe(STEP_WITHOUT_SUBSTEP_MESSAGE);
  third.substeps.push('x');
  expect(validate(op)).toBe(invalidCharactersMessage('step', 'A~'));
  third.name = 'A';
  expect(validate(op)).toBe(SAME_PROCESS_NAMES_MESSAGE);
  op.processes[2]!.name = 'P3';
  expect(validate(op)).toBe(SAME_STEP_NAMES_MESSAGE);
  third.name = 'D';
  expect(validate(op)).toBe(PROCESS_WITHOUT_STEP_MESSAGE);
  op.processes.pop();
  expect(validate(op)).toBe(TOO_MANY_PROCESSES_MESSAGE);
});

test('the invalid-character message names the first name: process, then each step and its sub-steps', () => {
  const op = valid();
  op.processes[0]!.steps[1]!.substeps[0] = 'x~';
  op.processes[1]!.name = 'P`';
  op.processes[0]!.steps[1]!.name = 'B~';
  expect(validate(op)).toBe(invalidCharactersMessage('step', 'B~'));
});

test('a long line of spaces is cleaned in linear time', () => {
  const line = `a${' '.repeat(200_000)}b:`;
  const started = performance.now();
  expect(read(`Op\n${line}\nx;`).processes[0]?.steps[0]?.substeps).toEqual(['x']);
  expect(performance.now() - started).toBeLessThan(1_000);
});
