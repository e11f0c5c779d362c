import { render, screen } from '@testing-library/react';

import { App } from './app';

test('renders the product name', () => {
  render(<App />);
  expect(screen.getByRole('heading', { name: 'gemba' })).toBeInTheDocument();
});
