import type { DeviceSchedule } from '@/api/generated';
import { SCHEDULE_TIME_MESSAGE } from '@/config/messages';

import {
  NO_DAY_MESSAGE,
  checkSchedule,
  createBody,
  daysText,
  initialValues,
  minuteOfDay,
  patchBody,
  timeChoices,
  timeRange,
  weekLayout,
} from './schedules';

const schedule = (id: number, camera: string, days: number[], start: string, end: string): DeviceSchedule => ({
  id,
  device: 7,
  camera,
  task: 4,
  task_name: 'Assemble pump',
  days,
  start,
  end,
  time_zone: 'Europe/Berlin',
  created_at: 0,
  updated_at: 0,
});

test('times are HH:MM of one day, 24:00 its end, the end after the start', () => {
  expect(minuteOfDay('00:00')).toBe(0);
  expect(minuteOfDay('06:30')).toBe(390);
  expect(minuteOfDay('24:00')).toBe(1440);
  for (const bad of ['24:01', '6:00', '06:60', '', '25:00', '06:00 ']) expect(minuteOfDay(bad)).toBeNull();
  expect(timeRange('06:00', '14:00')).toEqual([360, 840]);
  expect(timeRange('22:00', '24:00')).toEqual([1320, 1440]);
  expect(timeRange('14:00', '06:00')).toBeNull();
  expect(timeRange('06:00', '06:00')).toBeNull();
  expect(timeRange('', '06:00')).toBeNull();
});

test('the time choices go in quarters, starts up to 23:45, ends up to 24:00, keeping an odd one', () => {
  const starts = timeChoices('start');
  expect(starts).toHaveLength(96);
  expect([starts[0], starts[1], starts.at(-1)]).toEqual(['00:00', '00:15', '23:45']);
  const ends = timeChoices('end');
  expect([ends[0], ends.at(-1)]).toEqual(['00:15', '24:00']);
  const odd = timeChoices('start', '06:05');
  expect(odd.slice(24, 27)).toEqual(['06:00', '06:05', '06:15']);
  expect(timeChoices('start', '06:00')).toHaveLength(96);
});

test('a schedule is checked before sending: camera, task, a weekday, a time range', () => {
  expect(checkSchedule(initialValues(null))).toEqual({
    camera: 'Camera is required!',
    task: 'Task is required!',
    days: NO_DAY_MESSAGE,
    start: SCHEDULE_TIME_MESSAGE,
  });
  const ok = { camera: 'cam0', task: '4', days: [0], start: '06:00', end: '14:00' };
  expect(checkSchedule(ok)).toEqual({});
  expect(checkSchedule({ ...ok, end: '' })).toEqual({ start: SCHEDULE_TIME_MESSAGE });
  expect(checkSchedule({ ...ok, start: '14:00', end: '06:00' })).toEqual({ start: SCHEDULE_TIME_MESSAGE });
});

test('a new schedule is sent whole with its days in order; a change with only what changed', () => {
  expect(createBody(7, { camera: 'cam0', task: '4', days: [4, 0, 2], start: '06:00', end: '14:00' })).toEqual({
    device: 7,
    camera: 'cam0',
    task: 4,
    days: [0, 2, 4],
    start: '06:00',
    end: '14:00',
  });
  const s = schedule(1, 'cam0', [0, 1, 2], '06:00', '14:00');
  const v = initialValues(s);
  expect(patchBody(s, v)).toEqual({});
  expect(patchBody(s, { ...v, days: [2, 1, 0] })).toEqual({});
  expect(patchBody(s, { ...v, days: [0, 1], end: '12:00' })).toEqual({ days: [0, 1], end: '12:00' });
  expect(patchBody(s, { ...v, camera: 'gate', task: '5', start: '07:00' })).toEqual({ camera: 'gate', task: 5, start: '07:00' });
});

test('weekdays read as the server names them', () => {
  expect(daysText([4, 0, 1])).toBe('Mon, Tue, Fri');
  expect(daysText([5, 6])).toBe('Sat, Sun');
});

test('the week lays each schedule out on its days; schedules at the same time share the width', () => {
  const week = weekLayout([
    schedule(1, 'cam0', [0, 1], '06:00', '14:00'),
    schedule(2, 'cam1', [0], '08:00', '10:00'),
    schedule(3, 'cam1', [0], '12:00', '16:00'),
    schedule(4, 'cam0', [0], '14:00', '22:00'),
    schedule(5, 'cam0', [0], '23:00', '24:00'),
    schedule(6, 'cam0', [6], 'bad', '24:00'),
  ]);
  const monday = week[0]!.map((b) => [b.schedule.id, b.start, b.end, b.lane, b.lanes]);
  // 1 and 2 meet; 3 meets 1 and 4 and takes 2's lane, free again; 4 starts as 1 ends;
  // 5 meets nothing.
  expect(monday).toEqual([
    [1, 360, 840, 0, 2],
    [2, 480, 600, 1, 2],
    [3, 720, 960, 1, 2],
    [4, 840, 1320, 0, 2],
    [5, 1380, 1440, 0, 1],
  ]);
  expect(week[1]!.map((b) => [b.schedule.id, b.lane, b.lanes])).toEqual([[1, 0, 1]]);
  expect(week.slice(2).every((d) => d.length === 0)).toBe(true);
});
