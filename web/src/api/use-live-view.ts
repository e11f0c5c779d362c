/**
 * Live view in a screen (`live-view.ts` given the browser's parts): one device stream
 * per screen carrying every camera's session and the devices' status, and a `<video>`
 * per viewer.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';

import { browserConnect } from '@/api/browser-socket';
import { applyStreamEvent } from '@/api/device-stream';
import { type LiveState, type LiveView, type PeerFactory, LiveSignalling, watch } from '@/api/live-view';
import type { StreamState } from '@/api/stream';

/** The browser's peer connection (none where the browser has no WebRTC). */
export const browserPeer: PeerFactory = (config) => {
  if (typeof RTCPeerConnection === 'undefined') throw new Error('This browser cannot play live video (no WebRTC).');
  return new RTCPeerConnection(config);
};

/** A `<video>` as a viewer's picture: muted and inline, so it plays by itself. */
export function videoView(video: HTMLVideoElement): LiveView {
  return {
    show(stream) {
      video.muted = true;
      if (video.srcObject !== stream) video.srcObject = stream;
    },
    onPicture(picture) {
      const check = () => {
        if (video.videoWidth > 0) picture();
      };
      const events = ['loadeddata', 'resize', 'playing'] as const;
      for (const e of events) video.addEventListener(e, check);
      check();
      return () => {
        for (const e of events) video.removeEventListener(e, check);
      };
    },
  };
}

/**
 * The calling screen's device stream for organisation `org`: it watches every device of
 * the organisation (their status goes into the cached device queries, as
 * `useDeviceStream` does) and carries the screen's live sessions.
 */
export function useLiveSignalling(org: number | null): { signal: LiveSignalling | null; state: StreamState } {
  const qc = useQueryClient();
  const [state, setState] = useState<StreamState>('connecting');
  const signal = useMemo(
    () =>
      org === null
        ? null
        : new LiveSignalling(browserConnect(org), {
            greeting: () => ({ event: 'subscribe', data: {} }),
            onEvent: (e) => applyStreamEvent(qc, e),
            onState: setState,
          }),
    [org, qc],
  );

  useEffect(() => {
    if (!signal) return;
    signal.start();
    return () => signal.stop();
  }, [signal]);

  return { signal, state };
}

/**
 * One viewer of `camera` on `device` while `enabled`: give `ref` to the `<video>`;
 * `state` is null while not enabled.
 */
export function useLiveVideo(
  signal: LiveSignalling | null,
  device: number,
  camera: string,
  enabled: boolean,
): { ref: (video: HTMLVideoElement | null) => void; state: LiveState | null } {
  const [video, setVideo] = useState<HTMLVideoElement | null>(null);
  const [state, setState] = useState<LiveState>({ state: 'connecting' });

  useEffect(() => {
    if (!signal || !video || !enabled) return;
    return watch(signal, { device, camera }, videoView(video), setState, { makePeer: browserPeer });
  }, [signal, video, device, camera, enabled]);

  return { ref: setVideo, state: enabled ? state : null };
}
