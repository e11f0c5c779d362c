import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useId, useState } from 'react';

import type { ModelType } from '@/api/generated';
import { Dialog, DialogActions } from '@/components/ui/dialog';
import { EmptyState } from '@/components/ui/empty-state';
import { Field, FormError } from '@/components/ui/field';
import { QueryStatus } from '@/components/ui/query-status';
import { MAX_NAME_CHARS, MODEL_HIDDEN_MAX, MODEL_HIDDEN_MIN, MODEL_SIDE_MAX, MODEL_SIDE_MIN } from '@/config/constants';
import { DATA_CREATED, DATA_UPDATED } from '@/config/messages';
import { formErrors } from '@/lib/api-errors';
import { notify } from '@/lib/toast';
import { MAX_CHARS, trimWs, wholeNumber } from '@/lib/validate';

import { createModelType, modelTypesKey, modelTypesQuery, updateModelType } from '../api/model-types';
import { ModelFiles } from './model-files';

/** "96×72 frames, 32 hidden units". */
export const recipe = (t: Pick<ModelType, 'input_width' | 'input_height' | 'hidden'>) =>
  `${t.input_width}×${t.input_height} frames, ${t.hidden} hidden units`;

/**
 * `/admin/model-types` (Model Types, super admin): the platform's model types, each with
 * its recipe (frame size, hidden width) and its model files; create a type, change one
 * (its recipe only while nothing was made to it: the server says so), and upload, move
 * or delete its files.
 */
export default function ModelTypesScreen() {
  const q = useQuery(modelTypesQuery());
  const [open, setOpen] = useState<{ type?: ModelType } | null>(null);
  const types = q.data ?? [];
  return (
    <section>
      <div className="screen-header">
        <h1>Model Types</h1>
        <button type="button" onClick={() => setOpen({})}>
          Create Model Type
        </button>
      </div>
      <QueryStatus pending={q.isPending} error={q.error} what="Model types" />
      {q.data && types.length === 0 ? <EmptyState title="No model types yet." /> : null}
      {types.map((t) => (
        <ModelTypeCard key={t.id} type={t} types={types} onEdit={() => setOpen({ type: t })} />
      ))}
      {open ? <ModelTypeFormDialog type={open.type} onClose={() => setOpen(null)} /> : null}
    </section>
  );
}

function ModelTypeCard({ type, types, onEdit }: { type: ModelType; types: readonly ModelType[]; onEdit: () => void }) {
  const titleId = useId();
  return (
    <section className="section" aria-labelledby={titleId}>
      <div className="task-header">
        <h2 id={titleId}>{type.name}</h2>
        <span className="badge">{recipe(type)}</span>
        <button type="button" className="small secondary" aria-label={`Edit ${type.name}`} onClick={onEdit}>
          Edit
        </button>
      </div>
      {type.description ? <p>{type.description}</p> : null}
      <ModelFiles type={type} others={types.filter((o) => o.id !== type.id)} />
    </section>
  );
}

type Values = { name: string; description: string; input_width: string; input_height: string; hidden: string };

const MAX_DESCRIPTION = MAX_CHARS.DESCRIPTION;

/** The server's checks of a type (`cloud/src/http/model_types.rs`), with its messages. */
function check(v: Values): Record<string, string> {
  const out: Record<string, string> = {};
  const name = trimWs(v.name);
  if (name === '') out.name = 'The name is required!';
  else if ([...name].length > MAX_NAME_CHARS) out.name = `The name must be at most ${MAX_NAME_CHARS} characters.`;
  else if (/\p{Cc}/u.test(name)) out.name = 'The name cannot contain line breaks or control characters.';
  if ([...trimWs(v.description)].length > MAX_DESCRIPTION) {
    out.description = `A description must be at most ${MAX_DESCRIPTION} characters.`;
  }
  for (const side of ['input_width', 'input_height'] as const) {
    if (wholeNumber(v[side], MODEL_SIDE_MIN, MODEL_SIDE_MAX) === null) {
      out[side] = `Ensure this value is between ${MODEL_SIDE_MIN} and ${MODEL_SIDE_MAX} pixels.`;
    }
  }
  if (wholeNumber(v.hidden, MODEL_HIDDEN_MIN, MODEL_HIDDEN_MAX) === null) {
    out.hidden = `Ensure this value is between ${MODEL_HIDDEN_MIN} and ${MODEL_HIDDEN_MAX} units.`;
  }
  return out;
}

/** Create a model type (the default recipe filled in), or change one. */
function ModelTypeFormDialog({ type, onClose }: { type?: ModelType | undefined; onClose: () => void }) {
  const qc = useQueryClient();
  const [values, setValues] = useState<Values>({
    name: type?.name ?? '',
    description: type?.description ?? '',
    input_width: String(type?.input_width ?? 64),
    input_height: String(type?.input_height ?? 48),
    hidden: String(type?.hidden ?? 48),
  });
  const [errors, setErrors] = useState<Record<string, string>>({});

  const m = useMutation({
    mutationFn: () => {
      const body = {
        name: trimWs(values.name),
        description: trimWs(values.description),
        input_width: Number(values.input_width),
        input_height: Number(values.input_height),
        hidden: Number(values.hidden),
      };
      return type ? updateModelType(type.id, body) : createModelType(body);
    },
    onSuccess: async () => {
      notify.successShort(type ? DATA_UPDATED : DATA_CREATED);
      onClose();
      await qc.invalidateQueries({ queryKey: modelTypesKey });
    },
    onError: (err) => setErrors(formErrors(err)),
  });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (m.isPending) return;
    const problems = check(values);
    setErrors(problems);
    if (Object.keys(problems).length === 0) m.mutate();
  };

  const field = (key: keyof Values, label: string, numeric = false) => (
    <Field
      label={label}
      value={values[key]}
      error={errors[key]}
      {...(numeric ? { type: 'number', inputMode: 'numeric' as const } : {})}
      onChange={(e) => {
        setValues((v) => ({ ...v, [key]: e.target.value }));
        setErrors(({ [key]: _, ...rest }) => rest);
      }}
    />
  );

  return (
    <Dialog title={type ? `Edit ${type.name}` : 'Create Model Type'} onClose={onClose}>
      <form onSubmit={submit} noValidate>
        {field('name', 'Name')}
        {field('description', 'Description')}
        {field('input_width', 'Frame width (px)', true)}
        {field('input_height', 'Frame height (px)', true)}
        {field('hidden', 'Hidden units', true)}
        {type ? <p className="muted">The recipe can change only while no model file or model version was made to it.</p> : null}
        <FormError message={errors.non_field_errors} />
        <DialogActions onCancel={onClose} submitLabel={type ? 'Save' : 'Create'} pending={m.isPending} />
      </form>
    </Dialog>
  );
}
