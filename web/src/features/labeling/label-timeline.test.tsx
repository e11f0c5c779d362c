import { fireEvent, render, screen } from '@testing-library/react';

import { LabelTimeline } from './components/label-timeline';

/** A 500-px timeline showing 0–10 s, its gestures recorded. */
function timeline(canMark: boolean) {
  const onSeek = vi.fn();
  const onMark = vi.fn();
  render(
    <LabelTimeline
      view={{ from: 0, to: 10_000 }}
      segments={[{ step: 0, start_ms: 1000, end_ms: 2000 }]}
      steps={['Pick base']}
      start={null}
      now={0}
      canMark={canMark}
      label="Timeline"
      onSeek={onSeek}
      onMark={onMark}
    />,
  );
  const el = screen.getByRole('slider', { name: 'Timeline' });
  el.getBoundingClientRect = () => ({ left: 100, width: 500, top: 0, height: 44, right: 600, bottom: 44, x: 100, y: 0, toJSON: () => ({}) });
  return { el, onSeek, onMark };
}

const at = (x: number) => ({ pointerId: 1, button: 0, clientX: x });

test('a tap on the timeline goes to that moment', () => {
  const { el, onSeek, onMark } = timeline(true);
  fireEvent.pointerDown(el, at(350));
  fireEvent.pointerUp(el, at(352));
  expect(onSeek).toHaveBeenCalledWith(5040);
  expect(onMark).not.toHaveBeenCalled();
});

test('a drag along it shows the span as it goes and marks it when released', () => {
  const { el, onSeek, onMark } = timeline(true);
  fireEvent.pointerDown(el, at(400));
  fireEvent.pointerMove(el, at(200));
  expect(screen.getByTestId('timeline-drag')).toHaveStyle({ left: '100px', width: '200px' });
  fireEvent.pointerUp(el, at(200));
  expect(onMark).toHaveBeenCalledWith(2000, 6000);
  expect(onSeek).not.toHaveBeenCalled();
  expect(screen.queryByTestId('timeline-drag')).toBeNull();
});

test('read only, a drag seeks; a cancelled press does nothing', () => {
  const { el, onSeek, onMark } = timeline(false);
  fireEvent.pointerDown(el, at(100));
  fireEvent.pointerMove(el, at(300));
  expect(screen.queryByTestId('timeline-drag')).toBeNull();
  fireEvent.pointerUp(el, at(300));
  expect(onSeek).toHaveBeenCalledWith(4000);
  fireEvent.pointerDown(el, at(100));
  fireEvent.pointerCancel(el, at(300));
  fireEvent.pointerUp(el, at(300));
  expect(onSeek).toHaveBeenCalledTimes(1);
  expect(onMark).not.toHaveBeenCalled();
});

test('by keyboard it is a slider: Home, End and a tenth back or on', () => {
  const { el, onSeek } = timeline(true);
  expect(el).toHaveAttribute('tabindex', '0');
  expect(el).toHaveAttribute('aria-valuetext', '0.000 s');
  fireEvent.keyDown(el, { key: 'End' });
  expect(onSeek).toHaveBeenLastCalledWith(10_000);
  fireEvent.keyDown(el, { key: 'PageDown' });
  expect(onSeek).toHaveBeenLastCalledWith(1000);
  fireEvent.keyDown(el, { key: 'Home' });
  expect(onSeek).toHaveBeenLastCalledWith(0);
  // From the start, a tenth back stays at the start.
  fireEvent.keyDown(el, { key: 'PageUp' });
  expect(onSeek).toHaveBeenLastCalledWith(0);
});
