import { describe, expect, it } from 'vitest';

import type { VideoMetadata } from '@/api/generated';

import { metadataRows } from './api/video-metadata';

const m: VideoMetadata = {
  task_record: 1,
  file_name: 'pump.mp4',
  size_bytes: 2_500_000,
  duration_ms: 12_345,
  frame_rate: 29.97002997,
  width: 1280,
  height: 720,
  codec: 'H.264 (High Profile)',
  container: 'Quicktime',
  has_audio: false,
  bitrate: 1_500_000,
};

describe('metadataRows', () => {
  it('says each value for people', () => {
    expect(Object.fromEntries(metadataRows(m))).toEqual({
      Length: '12.3 s',
      Picture: '1280×720',
      'Frame rate': '29.97 fps',
      'Video codec': 'H.264 (High Profile)',
      Container: 'Quicktime',
      Sound: 'no',
      'Bit rate': '1500 kbit/s',
      'File size': '2.50 MB',
    });
  });

  it('names what the file does not say', () => {
    const rows = Object.fromEntries(metadataRows({ ...m, frame_rate: 0, container: null, bitrate: null, codec: '' }));
    expect([rows['Frame rate'], rows.Container, rows['Bit rate'], rows['Video codec']]).toEqual([
      'variable',
      'none (a bare stream)',
      'not given',
      'unknown',
    ]);
  });
});
