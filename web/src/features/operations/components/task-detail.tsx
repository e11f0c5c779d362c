import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';

import { SelectField } from '@/components/ui/field';
import { QueryStatus } from '@/components/ui/query-status';
import { formatDateTime } from '@/lib/format';

import { TRAIN_STATUS_LABEL } from '@/lib/format';

import { taskQuery } from '../api/tasks';
import { HistorySection } from './history-section';
import { ModelSection } from './model-section';
import { OperationSection } from './operation-section';
import { ParametersSection } from './parameters-section';
import { RectificationSection } from './rectification-section';
import { StoredObjectsSection } from './stored-objects-section';
import { TranslationSection } from './translation-section';
import { VirtualTasksSection } from './virtual-tasks-section';

/**
 * One task: its operation, parameters, model, translation and history. The language
 * switch (English, the default, or the task's translation) shows the operation's names
 * in that language (spec section 4). Keyed by the task's id by the screen, so choosing
 * another task starts every edit afresh.
 *
 * Each section's form starts from the task's values and is keyed by them, so a save or a
 * revert that changes them shows the new values, while changes elsewhere leave an edit
 * in progress alone.
 */
export function TaskDetail({ id, manage }: { id: number; manage: boolean }) {
  const q = useQuery(taskQuery(id));
  const titleId = useId();
  const [language, setLanguage] = useState<'english' | 'translation'>('english');
  const task = q.data;
  if (!task) return <QueryStatus pending={q.isPending} error={q.error} what="Operation" />;

  const hasTranslation = Object.keys(task.translation).length > 0 && !!task.translation_name;
  const translation = hasTranslation && language === 'translation' ? task.translation : null;
  const t = task.taskParameters;
  const paramsKey = JSON.stringify([t, task.negativeSteps, task.optional_steps, task.steps]);
  const modelKey = JSON.stringify([task.model_choice, task.model_version]);

  return (
    <article className="task-detail" aria-labelledby={titleId}>
      <header className="task-header">
        <h2 id={titleId}>{task.taskName}</h2>
        <span className={`badge status-${task.train_status}`}>{TRAIN_STATUS_LABEL[task.train_status]}</span>
        <span className="muted">
          {task.stepsCount} {task.stepsCount === 1 ? 'step' : 'steps'} · created {formatDateTime(task.created_at)}
        </span>
        {hasTranslation ? (
          <div className="language-switch">
            <SelectField
              label="Show names in"
              value={language}
              onChange={(e) => setLanguage(e.target.value === 'translation' ? 'translation' : 'english')}
            >
              <option value="english">English</option>
              <option value="translation">{task.translation_name}</option>
            </SelectField>
          </div>
        ) : null}
      </header>
      <OperationSection task={task} manage={manage} translation={translation} />
      <ParametersSection key={paramsKey} task={task} manage={manage} translation={translation} />
      <VirtualTasksSection taskId={task.id} />
      <RectificationSection key={task.task_detail} task={task} manage={manage} />
      <StoredObjectsSection taskId={task.id} />
      <ModelSection key={modelKey} task={task} manage={manage} />
      <TranslationSection task={task} manage={manage} />
      <HistorySection task={task} manage={manage} />
    </article>
  );
}
