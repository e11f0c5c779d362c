import type { DeviceSchedule } from '@/api/generated';
import { stepColour } from '@/components/charts/palette';

import { DAY_MINUTES, SHORT_DAYS, WEEKDAYS, hhmm, weekLayout } from '../schedules';

const HOURS = Array.from({ length: 24 }, (_, h) => h);
const pct = (minutes: number) => `${(minutes / DAY_MINUTES) * 100}%`;

/** How a schedule's block is named: "cam0: Assemble pump, 06:00–14:00". */
export const blockName = (s: DeviceSchedule) => `${s.camera}: ${s.task_name || `Task ${s.task}`}, ${s.start}–${s.end}`;

/**
 * The week as a grid: a column per weekday (Monday first), the hours of the day as
 * rows, each schedule a block on each of its days, coloured by camera; blocks of the
 * same time share the width. With `onOpen`, a block opens its schedule.
 */
export function ScheduleGrid({
  schedules,
  cameras,
  onOpen,
}: {
  schedules: readonly DeviceSchedule[];
  /** The device's cameras in order: a camera's colour is its place here. */
  cameras: readonly string[];
  onOpen?: (s: DeviceSchedule) => void;
}) {
  const week = weekLayout(schedules);
  const colour = (camera: string) => stepColour(Math.max(0, cameras.indexOf(camera)));
  return (
    <div className="week-grid" role="group" aria-label="Week">
      <div aria-hidden="true" />
      {SHORT_DAYS.map((d) => (
        <div key={d} className="week-day-name" aria-hidden="true">
          {d}
        </div>
      ))}
      <div className="week-hours" aria-hidden="true">
        {HOURS.map((h) => (
          <span key={h} style={{ top: pct(h * 60) }}>
            {hhmm(h * 60)}
          </span>
        ))}
      </div>
      {week.map((blocks, day) => (
        <div key={day} className="week-day" role="group" aria-label={WEEKDAYS[day]}>
          {blocks.map((b) => {
            const name = blockName(b.schedule);
            const style = {
              top: pct(b.start),
              height: pct(b.end - b.start),
              left: `${(b.lane / b.lanes) * 100}%`,
              width: `${100 / b.lanes}%`,
              borderLeftColor: colour(b.schedule.camera),
            };
            const text = (
              <span>
                <strong>{b.schedule.camera}</strong> {b.schedule.task_name || `Task ${b.schedule.task}`}
                <br />
                {b.schedule.start}–{b.schedule.end}
              </span>
            );
            return onOpen ? (
              <button key={b.schedule.id} type="button" className="week-block" style={style} title={name} aria-label={name} onClick={() => onOpen(b.schedule)}>
                {text}
              </button>
            ) : (
              <div key={b.schedule.id} className="week-block" style={style} title={name} role="note" aria-label={name}>
                {text}
              </div>
            );
          })}
        </div>
      ))}
    </div>
  );
}
