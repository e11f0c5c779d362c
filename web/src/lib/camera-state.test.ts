import { describe, expect, it } from 'vitest';

import type { CameraStatus } from '@/api/generated';
import { cameraState } from '@/lib/camera-state';

const camera = (over: Partial<CameraStatus>): CameraStatus => ({
  camera: 'cam0',
  task: 7,
  fps: 15,
  model_version: null,
  state: 'running',
  generation: 1,
  ...over,
});

const device = { status: null, last_seen: null };

describe('cameraState', () => {
  it('says a task the device started by schedule', () => {
    expect(cameraState(camera({}), device)).toBe('Running');
    expect(cameraState(camera({ schedule: 3 }), device)).toBe('Running by schedule');
    expect(cameraState(camera({ schedule: 3, state: 'starting' }), device)).toBe('Starting by schedule');
    expect(cameraState(camera({ schedule: 3, state: 'failed', error: 'camera cam0: gone' }), device)).toBe(
      'Failed by schedule: camera cam0: gone',
    );
  });

  it('says an idle camera idle and a warning after its state', () => {
    expect(cameraState(camera({ task: null, state: 'idle' }), device)).toBe('Idle');
    expect(cameraState(camera({ warning: 'the file ends early' }), device)).toBe('Running — the file ends early');
  });
});
