import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';

import { videosKey } from '@/api/videos';
import { FormError } from '@/components/ui/field';
import { QueryStatus } from '@/components/ui/query-status';
import { errorMessage } from '@/lib/api-errors';
import { formatDateTime } from '@/lib/format';

import { addComment, commentsQuery } from '../api/recording';
import { BODY_LIMITS } from '@/lib/validate';

/** A video's comments, oldest first, and a box to add one (the video's count follows). */
export function CommentsPanel({ video }: { video: number }) {
  const qc = useQueryClient();
  const q = useQuery(commentsQuery(video));
  const [text, setText] = useState('');
  const [error, setError] = useState<string | null>(null);
  const add = useMutation({
    mutationFn: () => addComment({ entity_id: video, text }),
    onSuccess: async () => {
      setText('');
      setError(null);
      await qc.invalidateQueries({ queryKey: videosKey });
    },
    onError: (err) => setError(errorMessage(err, 'post')),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!text.trim()) {
      setError('Write a comment first.');
      return;
    }
    add.mutate();
  };
  return (
    <section aria-label="Comments" className="comments">
      <h3>Comments</h3>
      <QueryStatus pending={q.isPending} error={q.error} what="Comments" />
      {q.data?.length === 0 ? <p className="muted">No comments yet.</p> : null}
      <ul>
        {(q.data ?? []).map((c) => (
          <li key={c.id}>
            <strong>{c.user_name}</strong> <span className="muted">{formatDateTime(c.created_at)}</span>
            <p>{c.text}</p>
          </li>
        ))}
      </ul>
      <form aria-label="Add a comment" onSubmit={submit}>
        <label>
          Comment
          <textarea value={text} onChange={(e) => setText(e.target.value)} rows={2} maxLength={BODY_LIMITS.CommentCreate.text} />
        </label>
        <FormError message={error} />
        <button type="submit" disabled={add.isPending}>
          {add.isPending ? 'Sending…' : 'Add comment'}
        </button>
      </form>
    </section>
  );
}
