import { expect, test } from 'vitest';

import { parseCycleIds } from './records';

test('cycle ids split on commas and white space, each once, in order', () => {
  expect(parseCycleIds(' c-1, c-2\nc-3  c-1 ,')).toEqual(['c-1', 'c-2', 'c-3']);
  expect(parseCycleIds(' , \n')).toEqual([]);
});
