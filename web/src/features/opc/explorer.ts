/**
 * The OPC UA explorer's requests on the device stream (`/api/ws`, event
 * `discover_devices_opcua`; `shared/src/api/v1/stream.rs`): `ask` sends a device a
 * request (discover servers, browse a node, read one) and resolves with the device's
 * reply, or rejects with why in words.
 *
 * Each request is a call on the screen's `DeviceStream` (`src/api/stream.ts`: opened
 * again after a drop, calls answered in order): the server answers it at once with
 * `sent` (with the request's id) or `error` (refused: the feature, the role, an offline
 * device…); the device's `answer` or `failed` then comes by that id. The stream also
 * watches every device of the organisation when `onEvent` is given (`subscribe`,
 * answered `devices`), whose events go there (the screen puts them in the cached device
 * list: online, offline). A dropped stream fails every request on it.
 */
import type { OpcuaEvent, OpcuaReply, OpcuaRequest, ServerEvent } from '@/api/generated';
import { type Connect, DeviceStream, type StreamState } from '@/api/stream';

export type ExplorerOptions = {
  onState?: (s: StreamState) => void;
  /** Every event that is not the explorer's (devices, their status). */
  onEvent?: (e: ServerEvent) => void;
  retryMs?: readonly number[];
  answerMs?: number;
};

const opcuaStep = (e: ServerEvent): OpcuaEvent | null => (e.event === 'discover_devices_opcua' ? e.data : null);

export class OpcuaExplorer {
  private readonly stream: DeviceStream;

  constructor(connect: Connect, options: ExplorerOptions = {}) {
    this.stream = new DeviceStream(connect, {
      ...options,
      greeting: options.onEvent ? () => ({ event: 'subscribe', data: {} }) : undefined,
      keyOf: (e) => opcuaStep(e)?.id ?? null,
    });
  }

  start(): void {
    this.stream.start();
  }

  /** Closes the stream; every request still waiting fails. */
  stop(): void {
    this.stream.stop();
  }

  /** Sends `request` to `device`: the device's reply, or why not. */
  ask(device: number, request: OpcuaRequest): Promise<OpcuaReply> {
    const stream = this.stream;
    return new Promise((resolve, reject) => {
      const fail = (why: string) => reject(new Error(why));
      stream.call({
        frame: { event: 'discover_devices_opcua', data: { device, request } },
        answeredBy: (e) => opcuaStep(e)?.type === 'sent',
        answer: (e) => {
          if (e.event === 'error') return fail(e.data.message);
          const id = opcuaStep(e)?.id;
          if (id === undefined) return;
          stream.follow(id, {
            event: (ev) => {
              const d = opcuaStep(ev);
              if (d?.type === 'answer') resolve(d.reply);
              else if (d?.type === 'failed') fail(d.message);
              else return;
              stream.unfollow(id);
            },
            lost: fail,
          });
        },
        lost: fail,
      });
    });
  }
}

/** The URLs typed for a discovery: split on spaces and commas. */
export function discoveryUrls(text: string): string[] {
  return text.split(/[\s,]+/u).filter((u) => u !== '');
}
