/**
 * Live view in the screen tests: a fake `RTCPeerConnection` (jsdom has none) put in the
 * page with `vi.stubGlobal`, and the device stream as a fake server that answers
 * `subscribe` with the devices and each live view `request` with `ready`, leaving the
 * rest (answers, refusals, ends) to the test.
 */
import { fireEvent } from '@testing-library/react';

import type { ClientEvent, Device, LiveEvent, LiveRequest, ServerEvent } from '@/api/generated';

import { deviceStream, server } from './server';

export const TEST_ICE = [{ urls: ['turn:127.0.0.1:3478?transport=udp'], username: 'u', credential: 'c' }];

/** A peer connection that gathers at once and plays what the test gives it. */
export class FakePeerConnection {
  static all: FakePeerConnection[] = [];
  localDescription: RTCSessionDescriptionInit | null = null;
  remoteDescription: RTCSessionDescriptionInit | null = null;
  iceGatheringState: RTCIceGatheringState = 'new';
  connectionState: RTCPeerConnectionState = 'new';
  onicegatheringstatechange: (() => void) | null = null;
  onconnectionstatechange: (() => void) | null = null;
  ontrack: ((ev: { streams: MediaStream[]; track: unknown }) => void) | null = null;
  transceivers: unknown[] = [];
  closed = false;
  constructor(readonly config: RTCConfiguration) {
    FakePeerConnection.all.push(this);
  }
  addTransceiver(kind: string, init: unknown) {
    this.transceivers.push([kind, init]);
    return {};
  }
  createOffer() {
    return Promise.resolve({ type: 'offer', sdp: `v=0 offer ${FakePeerConnection.all.indexOf(this)}` });
  }
  setLocalDescription(d: RTCSessionDescriptionInit) {
    this.localDescription = d;
    this.iceGatheringState = 'complete';
    return Promise.resolve();
  }
  setRemoteDescription(d: RTCSessionDescriptionInit) {
    this.remoteDescription = d;
    return Promise.resolve();
  }
  close() {
    this.closed = true;
  }
  /** Its stream arrives. */
  play(stream: MediaStream = { id: 'stream' } as unknown as MediaStream) {
    this.ontrack?.({ streams: [stream], track: {} });
  }
}

/** Puts the fake in the page (undone by `vi.unstubAllGlobals()`). */
export function fakeWebRtc() {
  FakePeerConnection.all = [];
  vi.stubGlobal('RTCPeerConnection', FakePeerConnection);
}

/** A frame of picture in `video`: its size, and the event a browser fires. */
export function paint(video: HTMLVideoElement, width = 320, height = 240) {
  Object.defineProperty(video, 'videoWidth', { value: width, configurable: true });
  Object.defineProperty(video, 'videoHeight', { value: height, configurable: true });
  fireEvent(video, new Event('resize'));
}

export type LiveServer = {
  /** Every frame the clients sent, in order, per connection. */
  frames: ClientEvent[][];
  /** The live view steps sent on every connection, in order. */
  steps: () => LiveRequest[];
  /** The sessions made, in order: `s-1`, `s-2`, … with their request. */
  sessions: { session: string; device: number; camera: string }[];
  /** Sends a live view step on the last connection. */
  say: (e: LiveEvent) => void;
  /** Sends any other event on the last connection. */
  push: (e: ServerEvent) => void;
  /** Connections closed by the client. */
  closed: number;
};

/** The device stream answering `subscribe` with `devices()` and each request `ready`. */
export function liveServer(devices: () => Device[]): LiveServer {
  const sends: ((e: ServerEvent) => void)[] = [];
  const s: LiveServer = {
    frames: [],
    sessions: [],
    steps: () => s.frames.flat().flatMap((f) => (f.event === 'webrtc_stream_offer' ? [f.data] : [])),
    say: (e) => sends[sends.length - 1]?.({ event: 'webrtc_stream_offer', data: e }),
    push: (e) => sends[sends.length - 1]?.(e),
    closed: 0,
  };
  server.use(
    deviceStream.addEventListener('connection', ({ client }) => {
      const frames: ClientEvent[] = [];
      s.frames.push(frames);
      const send = (e: ServerEvent) => client.send(JSON.stringify(e));
      sends.push(send);
      client.addEventListener('close', () => {
        s.closed += 1;
      });
      client.addEventListener('message', (m) => {
        const f = JSON.parse(typeof m.data === 'string' ? m.data : 'null') as ClientEvent;
        frames.push(f);
        if (f.event === 'webrtc_stream_offer') {
          if (f.data.type !== 'request') return;
          const session = `s-${s.sessions.length + 1}`;
          s.sessions.push({ session, device: f.data.device, camera: f.data.camera });
          send({ event: 'webrtc_stream_offer', data: { type: 'ready', session, device: f.data.device, camera: f.data.camera, ice_servers: TEST_ICE } });
          return;
        }
        if (f.event === 'subscribe') send({ event: 'devices', data: devices() });
      });
    }),
  );
  return s;
}
