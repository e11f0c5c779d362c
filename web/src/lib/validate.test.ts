// The cases of `shared/src/validate.rs`'s tests, so both sides refuse the same values.
import { checkChosen, checkName, email, INVALID_EMAIL_MESSAGE, INVALID_NAME_MESSAGE, password, PASSWORD_NEEDS_NON_LETTER, PASSWORD_NUMERIC, PASSWORD_TOO_LONG, PASSWORD_TOO_SHORT, personName } from './validate';

test('person names: letters with single inner dashes, apostrophes or spaces', () => {
  for (const good of ['Ann', 'Mary-Jane', "O'Neil", 'Jean Luc', 'Zoë', '  Ann  ']) {
    expect(personName('Name', good)).toBeNull();
  }
  expect(personName('First name', '  ')).toBe('First name is required!');
  for (const bad of ['Ann1', '-Ann', 'Ann-', 'A--n', 'A  n', 'Ann!', 'a_b']) {
    expect(personName('Name', bad)).toBe(INVALID_NAME_MESSAGE);
  }
  expect(INVALID_NAME_MESSAGE).toBe('Invalid Name. Valid name only contain letters, dashes (-) and spaces');
});

test('e-mail addresses', () => {
  expect(email('E-mail', 'a@b.co')).toBeNull();
  expect(email('E-mail', ' a@b.co ')).toBeNull();
  expect(email('E-mail', '')).toBe('E-mail is required!');
  for (const bad of ['a', 'a@b', '@b.co', 'a@@b.co', 'a b@c.de', 'a@.b', 'a@b..c', 'a@b.c.', `${'x'.repeat(250)}@b.co`]) {
    expect(email('E-mail', bad)).toBe(INVALID_EMAIL_MESSAGE);
  }
});

test('passwords: 8 to 128 characters, not only digits, not only letters', () => {
  expect(password('Password', 'correct horse 1')).toBeNull();
  expect(password('Password', '')).toBe('Password is required!');
  expect(password('Password', 'short1')).toBe(PASSWORD_TOO_SHORT);
  expect(password('Password', '12345678901')).toBe(PASSWORD_NUMERIC);
  expect(password('Password', 'onlyletters')).toBe(PASSWORD_NEEDS_NON_LETTER);
  expect(password('Password', 'ÄÖÜäöüßé')).toBe(PASSWORD_NEEDS_NON_LETTER);
  expect(password('Password', `a1${'x'.repeat(126)}`)).toBeNull();
  expect(password('Password', `a1${'x'.repeat(127)}`)).toBe(PASSWORD_TOO_LONG);
  // Code points, not UTF-16 units: 8 emoji are 8 characters.
  expect(password('Password', '😀'.repeat(8))).toBeNull();
  expect(password('Password', '😀'.repeat(7))).toBe(PASSWORD_TOO_SHORT);
});

test('names: blank (after trimming) is required, over 100 characters is too long', () => {
  expect(checkName('', 'Display name')).toBe('Display name is required!');
  expect(checkName('  \t', 'Display name')).toBe('Display name is required!');
  expect(checkName('x'.repeat(100), 'Display name')).toBeNull();
  expect(checkName(` ${'x'.repeat(100)} `, 'Display name')).toBeNull();
  expect(checkName('x'.repeat(101), 'Display name')).toBe('Display name must be at most 100 characters.');
  // Characters, not UTF-16 units.
  expect(checkName('🏭'.repeat(100), 'Department name')).toBeNull();
});

test('a choice still on its placeholder is required', () => {
  expect(checkChosen('', 'Role')).toBe('Role is required!');
  expect(checkChosen(null, 'Role')).toBe('Role is required!');
  expect(checkChosen('3', 'Role')).toBeNull();
  expect(checkChosen(0, 'Role')).toBeNull();
});
