import { useQuery } from '@tanstack/react-query';
import { Link, generatePath } from 'react-router';

import { DataTable } from '@/components/ui/data-table';
import { EmptyState } from '@/components/ui/empty-state';
import { paths } from '@/config/paths';

import { requestedTasksQuery } from '../api/labeler';

/** `/labeler/tasks` (Operations Requested): the operations whose videos the labeler was
 * asked to label, with their organisation and how far labeling has come. */
export default function LabelerTasksScreen() {
  const q = useQuery(requestedTasksQuery());
  return (
    <section>
      <div className="screen-header">
        <h1>Operations Requested</h1>
      </div>
      <DataTable
        label="Operations requested"
        query={{ isPending: q.isPending, error: q.error, data: q.data }}
        empty={<EmptyState title="No operations requested of you yet.">An organisation asks for labels by your e-mail address.</EmptyState>}
        columns={['Operation', 'Organisation', 'Steps', 'Videos labelled', 'Requested', '']}
        row={(t) => (
          <tr key={t.id}>
            <td>{t.taskName}</td>
            <td>{t.org_name_to_display}</td>
            <td>{t.steps.join(', ')}</td>
            <td>
              {t.labelled_videos} of {t.ready_videos}
            </td>
            <td>{new Date(t.requested_at).toLocaleDateString()}</td>
            <td>
              <Link
                to={generatePath(paths.labeler.videos, {
                  organization: t.org_name_to_display,
                  taskName: t.taskName,
                  taskId: String(t.id),
                })}
              >
                Videos of {t.taskName}
              </Link>
            </td>
          </tr>
        )}
      />
    </section>
  );
}
