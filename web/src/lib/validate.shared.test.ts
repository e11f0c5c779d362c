/**
 * The portal's field rules answer exactly as the server's on a corpus of awkward
 * inputs (`validation-cases.json`, written from `shared/src/validate.rs` by
 * `shared/tests/export_bindings.rs`): what the portal lets through the server accepts,
 * and both show the same message. One difference is by design: for an empty e-mail,
 * password or mobile number the portal says '{Field} is required!' before anything else.
 */
import cases from '@/api/generated/validation-cases.json';

import { email, MAX_CHARS, maxChars, mobileNumber, password, personName, requiredMessage } from './validate';

type Case = { rule: 'person_name' | 'email' | 'password' | 'mobile_number'; value: string; message: string | null };
/** A length limit at its boundary (`validate::LIMITS`, `validate::max_chars`). */
type LengthCase = { rule: 'max_chars'; limit: keyof typeof MAX_CHARS; value: string; message: string | null };

const all = cases as (Case | LengthCase)[];
const fieldCases = all.filter((c): c is Case => c.rule !== 'max_chars');
const lengthCases = all.filter((c): c is LengthCase => c.rule === 'max_chars');

const portal: Record<Case['rule'], (v: string) => string | null> = {
  person_name: (v) => personName('First name', v),
  email: (v) => email('E-mail', v),
  password: (v) => password('Password', v),
  mobile_number: (v) => mobileNumber('Mobile number', v),
};

test('the corpus covers every rule and every length limit', () => {
  expect(new Set(all.map((c) => c.rule))).toEqual(new Set(['person_name', 'email', 'password', 'mobile_number', 'max_chars']));
  const limits = Object.keys(MAX_CHARS).filter((k) => !k.endsWith('_BYTES') && k !== 'TASK_DETAIL');
  expect(new Set(lengthCases.map((c) => c.limit))).toEqual(new Set(limits));
});

test.each(lengthCases.map((c) => [c.limit, [...c.value].length, c] as const))('max_chars(%s) of %i code points answers as the server', (_l, _n, c) => {
  expect(maxChars('Name', c.value, MAX_CHARS[c.limit])).toBe(c.message);
});

test.each(fieldCases.map((c) => [c.rule, JSON.stringify(c.value), c] as const))('%s(%s) answers as the server', (_r, _v, c) => {
  const got = portal[c.rule](c.value);
  const label = { email: 'E-mail', password: 'Password', mobile_number: 'Mobile number' } as const;
  if (c.rule !== 'person_name' && c.value === '') {
    expect(got).toBe(requiredMessage(label[c.rule]));
  } else {
    expect(got).toBe(c.message);
  }
});
