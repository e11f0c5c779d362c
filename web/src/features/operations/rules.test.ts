import { wholeNumber } from '@/lib/validate';

import { defaultSettings, PUMP } from './fixtures';
import {
  checkTaskName,
  NO_CYCLE_LIMIT,
  type ParameterTexts,
  readModelVersion,
  readParameters,
  readTranslation,
  shownName,
  translatableNames,
} from './rules';

const BASE = defaultSettings('T', PUMP).taskParameters;
const TEXTS: ParameterTexts = {
  maximum_cycle_time: '',
  minimum_cycle_time: '0',
  min_share: '0.75',
  temporal_smoothness: '1',
  verify_threshold: '6',
  background_time: '50',
};

test('task names follow the server’s rules and messages', () => {
  expect(checkTaskName('  Pump \uFEFF')).toBeNull();
  expect(checkTaskName(' \t\uFEFF')).toBe('Task name is required!');
  expect(checkTaskName('x'.repeat(100))).toBeNull();
  expect(checkTaskName('😀'.repeat(101))).toBe('Task name must be at most 100 characters.');
  expect(checkTaskName('a\u0007b')).toBe('Task name cannot contain line breaks or control characters.');
});

test('whole numbers are whole, in range, and nothing else', () => {
  expect(wholeNumber(' 42 ', 0, 100)).toBe(42);
  expect(wholeNumber('+7', 0, 100)).toBe(7);
  for (const bad of ['', '4.5', '1e3', '0x10', '101', '-1', 'abc', '9007199254740993']) {
    expect(wholeNumber(bad, 0, 100)).toBeNull();
  }
});

test('the parameters read as the server checks them; an empty maximum is no limit', () => {
  const ok = readParameters(TEXTS, BASE);
  expect(ok).toEqual({ ok: true, value: BASE });
  expect(ok.ok && ok.value.telemetryParams.maximum_cycle_time).toBe(NO_CYCLE_LIMIT);

  const read = (t: Partial<ParameterTexts>) => {
    const r = readParameters({ ...TEXTS, ...t }, BASE);
    return r.ok ? r.value : r.errors;
  };
  expect(read({ minimum_cycle_time: '10', maximum_cycle_time: '10', min_share: '1', temporal_smoothness: '4', background_time: '0' })).toMatchObject({
    telemetryParams: { minimum_cycle_time: 10, maximum_cycle_time: 10, min_percentage_of_steps_required_to_end_cycle: 1, temporal_smoothness: 4 },
    trainingParams: { background_time: 0, verify_threshold: 6 },
  });
  expect(read({ minimum_cycle_time: '-1' })).toEqual({ minimum_cycle_time: 'The minimum cycle time cannot be negative.' });
  expect(read({ minimum_cycle_time: '1.5' })).toEqual({ minimum_cycle_time: 'The minimum cycle time must be a whole number of seconds.' });
  expect(read({ minimum_cycle_time: '20', maximum_cycle_time: '10' })).toEqual({
    maximum_cycle_time: 'The maximum cycle time cannot be below the minimum cycle time.',
  });
  expect(read({ maximum_cycle_time: 'soon' })).toEqual({
    maximum_cycle_time: 'The maximum cycle time must be a whole number of seconds, or empty for no limit.',
  });
  for (const share of ['-0.1', '1.01', '', 'half']) {
    expect(read({ min_share: share })).toEqual({ min_share: 'The share of steps required to end a cycle must be between 0 and 1.' });
  }
  expect(read({ temporal_smoothness: '0', verify_threshold: '0', background_time: '-1' })).toEqual({
    temporal_smoothness: 'The temporal smoothness must be at least 1 frame.',
    verify_threshold: 'The verify threshold must be at least 1 frame.',
    background_time: 'The background time cannot be negative.',
  });
  expect(read({ verify_threshold: '4294967296' })).toEqual({ verify_threshold: 'The verify threshold must be a whole number of frames.' });
});

test('a model version is empty or a positive whole number', () => {
  expect(readModelVersion(' ')).toEqual({ ok: true, value: null });
  expect(readModelVersion('12')).toEqual({ ok: true, value: 12 });
  for (const bad of ['0', '-3', '1.5', 'v2']) {
    expect(readModelVersion(bad)).toEqual({ ok: false, message: 'The model version must be a positive whole number.' });
  }
});

test('the names a translation covers: steps and sub-steps once each, in order', () => {
  expect(
    translatableNames({
      name: 'T',
      processes: [
        { name: 'P', steps: [{ name: ' A ', substeps: ['a', 'b'] }, { name: 'B', substeps: ['a', 'A'] }] },
        { name: 'Q', steps: [{ name: 'C', substeps: ['c'] }] },
      ],
    }),
  ).toEqual([
    { kind: 'step', name: 'A' },
    { kind: 'substep', name: 'a' },
    { kind: 'substep', name: 'b' },
    { kind: 'step', name: 'B' },
    { kind: 'step', name: 'C' },
    { kind: 'substep', name: 'c' },
  ]);
});

test('a translation needs a language and one name; blank names stay English; the server’s character rules apply', () => {
  expect(readTranslation(' Deutsch ', { A: ' Eins ', B: ' ' })).toEqual({ ok: true, language: 'Deutsch', translation: { A: 'Eins' } });
  expect(readTranslation('', { A: 'Eins' })).toEqual({ ok: false, field: 'language', message: 'The language is required!' });
  expect(readTranslation('x'.repeat(101), { A: 'Eins' })).toEqual({
    ok: false,
    field: 'language',
    message: 'The language must be at most 100 characters.',
  });
  expect(readTranslation('Deutsch', { A: '' })).toEqual({ ok: false, field: 'names', message: 'Please translate at least one step or sub-step!' });
  expect(readTranslation('Deutsch', { A: 'Ei`ns' })).toEqual({ ok: false, field: 'names', message: 'Translation "Ei`ns" contains invalid characters (~).' });
  expect(readTranslation('Deutsch', { A: 'a\nb' })).toMatchObject({ ok: false, field: 'names' });
  expect(readTranslation('Deutsch', { A: 'x'.repeat(101) })).toEqual({
    ok: false,
    field: 'names',
    message: 'A translation must be at most 100 characters.',
  });
  expect(shownName(' A ', { A: 'Eins' })).toBe('Eins');
  expect(shownName('B', { A: 'Eins' })).toBe('B');
  expect(shownName('A', null)).toBe('A');
});
