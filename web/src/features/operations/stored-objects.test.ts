import { describe, expect, it } from 'vitest';

import { kindLabel, sizeLabel } from './api/stored-objects';

describe('stored files', () => {
  it('names kinds for people, an unknown one as it is', () => {
    expect([kindLabel('clip'), kindLabel('validation_video'), kindLabel('other')]).toEqual(['Cycle clip', 'Validation video', 'other']);
  });

  it('gives sizes in B, kB and MB, and says when the store lacks the file', () => {
    expect([sizeLabel(999), sizeLabel(29_731), sizeLabel(7_500_000), sizeLabel(null)]).toEqual(['999 B', '29.7 kB', '7.5 MB', 'missing from the store']);
  });
});
