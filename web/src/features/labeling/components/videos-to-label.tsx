import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';

import type { Page, Video } from '@/api/generated';
import { VideoState } from '@/components/media/video-state';
import { DataTable } from '@/components/ui/data-table';
import { Pager } from '@/components/ui/pager';
import { exactSeconds } from '@/lib/format';

import { LABEL_STATES } from '../api/labels';

/**
 * An operation's videos to label (Label Training Set's and the labeler area's list):
 * name, type, length, where its labels stand (propagated ones to review stand out), and
 * a button that opens the editor on a ready one.
 */
export function VideosToLabel({
  q,
  page,
  onPage,
  empty,
  onLabel,
}: {
  q: UseQueryResult<Page<Video>>;
  page: number;
  onPage: (p: number) => void;
  empty: ReactNode;
  onLabel: (v: Video) => void;
}) {
  return (
    <>
      <DataTable
        label="Videos to label"
        query={{ isPending: q.isPending, error: q.error, data: q.data?.results }}
        empty={empty}
        columns={['Name', 'Type', 'Length', 'Labels', '']}
        row={(v) => (
          <tr key={v.id}>
            <td>{v.file_name}</td>
            <td>{v.isUploadedVideo ? 'Training' : 'Trace'}</td>
            <td>{v.duration_ms !== null ? exactSeconds(v.duration_ms) : <VideoState v={v} />}</td>
            <td>{v.labels === 'propagated' ? <strong>{LABEL_STATES[v.labels]}</strong> : LABEL_STATES[v.labels]}</td>
            <td>
              {v.status === 'ready' ? (
                <button type="button" className="secondary" onClick={() => onLabel(v)}>
                  {v.labels === 'propagated' ? 'Review' : 'Label'} {v.file_name}
                </button>
              ) : null}
            </td>
          </tr>
        )}
      />
      {q.data ? <Pager page={page} count={q.data.count} onPage={onPage} label="Videos" /> : null}
    </>
  );
}
