/**
 * The portal's field rules answer exactly as the server's on a corpus of awkward
 * inputs (`validation-cases.json`, written from `shared/src/validate.rs` by
 * `shared/tests/export_bindings.rs`): what the portal lets through the server accepts,
 * and both show the same message. One difference is by design: for an empty e-mail,
 * password or mobile number the portal says '{Field} is required!' before anything else.
 */
import cases from '@/api/generated/validation-cases.json';

import { email, mobileNumber, password, personName, requiredMessage } from './validate';

type Case = { rule: 'person_name' | 'email' | 'password' | 'mobile_number'; value: string; message: string | null };

const portal: Record<Case['rule'], (v: string) => string | null> = {
  person_name: (v) => personName('First name', v),
  email: (v) => email('E-mail', v),
  password: (v) => password('Password', v),
  mobile_number: (v) => mobileNumber('Mobile number', v),
};

test('the corpus covers every rule', () => {
  expect(new Set((cases as Case[]).map((c) => c.rule))).toEqual(new Set(['person_name', 'email', 'password', 'mobile_number']));
});

test.each((cases as Case[]).map((c) => [c.rule, JSON.stringify(c.value), c] as const))('%s(%s) answers as the server', (_r, _v, c) => {
  const got = portal[c.rule](c.value);
  const label = { email: 'E-mail', password: 'Password', mobile_number: 'Mobile number' } as const;
  if (c.rule !== 'person_name' && c.value === '') {
    expect(got).toBe(requiredMessage(label[c.rule]));
  } else {
    expect(got).toBe(c.message);
  }
});
