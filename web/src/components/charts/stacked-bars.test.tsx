import { fireEvent, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';

import { StackedBars, countTicks } from './stacked-bars';

test('the y axis counts in whole steps of 1, 2 or 5 times a power of ten, up to at least the largest stack', () => {
  expect(countTicks(0)).toEqual([0, 1]);
  expect(countTicks(3)).toEqual([0, 1, 2, 3]);
  expect(countTicks(7)).toEqual([0, 2, 4, 6, 8]);
  expect(countTicks(15)).toEqual([0, 5, 10, 15]);
  expect(countTicks(38)).toEqual([0, 10, 20, 30, 40]);
  expect(countTicks(120)).toEqual([0, 50, 100, 150]);
});

type Hour = { hour: string; good: number; bad: number };
const hours: Hour[] = [
  { hour: '08:00', good: 4, bad: 0 },
  { hour: '09:00', good: 3, bad: 1 },
  { hour: '10:00', good: 0, bad: 0 },
  { hour: '11:00', good: 1, bad: 2 },
];

function chart(data = hours) {
  return render(
    <StackedBars
      data={data}
      height={200}
      x="hour"
      xEvery={1}
      legend
      label="Cycles by hour"
      series={[
        { field: 'good', name: 'Good', colour: '#2e9e5b' },
        { field: 'bad', name: 'Bad', colour: '#d64d4d', hatched: true },
      ]}
    />,
  );
}

test('each row is a column of stacked bars, sized against the top of the axis, bad ones hatched', () => {
  const { container } = chart();
  const columns = [...container.querySelectorAll<HTMLElement>('.bars-column')];
  expect(columns).toHaveLength(4);
  const bars = (col: HTMLElement) => [...col.querySelectorAll<HTMLElement>('.bars-bar')].map((b) => [b.dataset.series, b.style.height, b.classList.contains('hatched')]);
  // The largest stack is 4: the axis goes 0..4, so 4 good cycles fill the plot.
  expect(bars(columns[0]!)).toEqual([['good', '100%', false]]);
  expect(bars(columns[1]!)).toEqual([
    ['good', '75%', false],
    ['bad', '25%', true],
  ]);
  expect(bars(columns[2]!)).toEqual([]);
  expect([...container.querySelectorAll('.bars-y span')].map((s) => s.textContent)).toEqual(['0', '1', '2', '3', '4']);
  // Every other x label (xEvery 1), and the series named under the chart.
  expect([...container.querySelectorAll('.bars-x span')].map((s) => s.textContent)).toEqual(['08:00', '', '10:00', '']);
  expect(screen.getAllByRole('listitem').map((li) => li.textContent)).toEqual(['Good', 'Bad']);
});

test("the tooltip tells a bar's figures under the pointer, and from the keyboard", async () => {
  const { container } = chart();
  expect(screen.queryByRole('status')).toBeNull();
  fireEvent.pointerEnter(container.querySelectorAll('.bars-column')[3]!);
  const tip = screen.getByRole('status');
  expect(tip).toHaveTextContent('11:00');
  expect(within(tip).getAllByRole('listitem').map((li) => li.textContent)).toEqual(['Good : 1', 'Bad : 2']);
  const plot = screen.getByRole('group', { name: /Cycles by hour/ });
  fireEvent.pointerLeave(plot);
  expect(screen.queryByRole('status')).toBeNull();

  const user = userEvent.setup();
  await user.tab();
  expect(plot).toHaveFocus();
  await user.keyboard('{ArrowRight}');
  expect(screen.getByRole('status')).toHaveTextContent('08:00');
  await user.keyboard('{ArrowRight}');
  expect(screen.getByRole('status')).toHaveTextContent('09:00Good : 3Bad : 1');
  await user.keyboard('{End}');
  expect(screen.getByRole('status')).toHaveTextContent('11:00');
  await user.keyboard('{Escape}');
  expect(screen.queryByRole('status')).toBeNull();
});

test('without rows the frame is still drawn', () => {
  const { container } = chart([]);
  expect(container.querySelectorAll('.bars-column')).toHaveLength(0);
  expect(screen.getByRole('group', { name: /Cycles by hour/ })).toBeInTheDocument();
});
