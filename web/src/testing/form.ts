import { screen } from '@testing-library/react';
import type userEvent from '@testing-library/user-event';

/**
 * Replaces the value of each field (by its label) with the given text, pasted at once
 * (typing key by key is slow on a loaded machine); an empty text leaves it empty.
 */
export async function fillIn(user: ReturnType<typeof userEvent.setup>, values: Record<string, string>) {
  for (const [label, v] of Object.entries(values)) {
    const input = await screen.findByLabelText(label);
    await user.clear(input);
    if (v) {
      await user.click(input);
      await user.paste(v);
    }
  }
}
