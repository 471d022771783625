import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button } from '../../../components/Button';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { FormError } from '../../../components/FormError';
import { EmptyState, ErrorState, Loading } from '../../../components/Status';
import { useDocumentTitle } from '../../../components/useDocumentTitle';
import { formatCountOf } from '../../../lib/format';
import { sentence } from '../../../lib/useForm';
import {
  createField,
  customFieldsQuery,
  deleteField,
  everyProjectKey,
  fieldUsageQuery,
  orderFields,
  TYPE_NAMES,
  updateField,
  type CustomField,
} from './api';
import { FieldForm, type FieldSave } from './FieldForm';
import './custom-fields.css';

/** `/admin/custom-fields` (admins and the owner): the tenant's custom fields of test cases. */
export function CustomFieldsPage() {
  useDocumentTitle('Custom fields');
  return <CustomFields />;
}

function CustomFields() {
  const queryClient = useQueryClient();
  const fields = useQuery(customFieldsQuery);
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<string>();
  const [deleting, setDeleting] = useState<CustomField>();
  // Every project's field list (the case editor, the repository's filters) reads what changed here.
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: customFieldsQuery.queryKey }),
      queryClient.invalidateQueries({ queryKey: everyProjectKey }),
    ]);
  const move = useMutation({
    mutationFn: (ids: string[]) => orderFields(ids),
    onSettled: refresh,
  });
  const toggle = useMutation({
    mutationFn: (f: CustomField) => updateField(f.id, { enabled: !f.enabled }),
    onSettled: refresh,
  });

  if (fields.isPending) return <Loading label="Loading the custom fields…" />;
  if (fields.isError)
    return (
      <div className="page page-narrow">
        <ErrorState
          title="The custom fields could not be loaded."
          error={fields.error}
          onRetry={() => fields.refetch()}
        />
      </div>
    );
  const list = fields.data;
  const moveTo = (i: number, j: number) => {
    const ids = list.map((f) => f.id);
    [ids[i], ids[j]] = [ids[j], ids[i]];
    move.mutate(ids);
  };
  const create: FieldSave = async (body) => {
    await createField(body);
    await refresh();
    setCreating(false);
  };

  return (
    <div className="page page-narrow custom-fields">
      <div className="page-header">
        <h1 className="page-title">Custom fields</h1>
      </div>
      <p className="muted">
        Fields every test case of the chosen projects can carry, in this order, beside title and priority.
      </p>
      <FormError
        message={
          move.isError
            ? `The order could not be saved: ${sentence(move.error.message)}`
            : toggle.isError
              ? sentence(toggle.error.message)
              : undefined
        }
      />
      <section className="panel" aria-labelledby="cf-new-title">
        <h2 id="cf-new-title" className="panel-title">
          New field
        </h2>
        {creating ? (
          <FieldForm onSave={create} onCancel={() => setCreating(false)} />
        ) : (
          <Button variant="primary" onPress={() => setCreating(true)}>
            New custom field
          </Button>
        )}
      </section>
      <section className="panel" aria-labelledby="cf-list-title">
        <h2 id="cf-list-title" className="panel-title">
          Fields
        </h2>
        {list.length === 0 ? (
          <EmptyState title="No custom fields yet." />
        ) : (
          <ol className="cf-list" aria-label="Custom fields, in order">
            {list.map((f, i) => (
              <li key={f.id} className="cf-row">
                <div className="cf-row-head">
                  <div className="cf-what">
                    <h3 className="cf-name">
                      {f.name} {!f.enabled && <span className="badge">Disabled</span>}
                    </h3>
                    <p className="muted">
                      {TYPE_NAMES[f.type]} · <code>{f.systemName}</code>
                      {f.required ? ' · required' : ''}
                      {f.defaultValue ? ` · default “${plain(f.defaultValue)}”` : ''}
                      {f.options ? ` · ${f.options.map((o) => o.value).join(', ')}` : ''}
                    </p>
                    <p className="muted">
                      {f.allowAllProjects
                        ? 'Every project'
                        : `Only ${formatCountOf(f.allowedProjectIds?.length ?? 0, 'project')}`}
                    </p>
                  </div>
                  <div className="row-actions">
                    <Button
                      aria-label={`Move ${f.name} up`}
                      isDisabled={i === 0 || move.isPending}
                      onPress={() => moveTo(i, i - 1)}
                    >
                      ↑
                    </Button>
                    <Button
                      aria-label={`Move ${f.name} down`}
                      isDisabled={i === list.length - 1 || move.isPending}
                      onPress={() => moveTo(i, i + 1)}
                    >
                      ↓
                    </Button>
                    <Button
                      aria-label={`${f.enabled ? 'Disable' : 'Enable'} ${f.name}`}
                      isDisabled={toggle.isPending}
                      onPress={() => toggle.mutate(f)}
                    >
                      {f.enabled ? 'Disable' : 'Enable'}
                    </Button>
                    <Button
                      aria-label={`Edit ${f.name}`}
                      onPress={() => setEditing(editing === f.id ? undefined : f.id)}
                    >
                      Edit
                    </Button>
                    <Button aria-label={`Delete ${f.name}`} onPress={() => setDeleting(f)}>
                      Delete…
                    </Button>
                  </div>
                </div>
                {editing === f.id && (
                  <FieldForm
                    field={f}
                    onCancel={() => setEditing(undefined)}
                    onSave={async ({ type: _t, systemName: _s, ...body }) => {
                      await updateField(f.id, body);
                      await refresh();
                      setEditing(undefined);
                    }}
                  />
                )}
              </li>
            ))}
          </ol>
        )}
      </section>
      {deleting && <DeleteDialog field={deleting} onClose={() => setDeleting(undefined)} onDone={refresh} />}
    </div>
  );
}

/** A default of a rich-text field, as words for the summary line. */
const plain = (html: string) => {
  const text = new DOMParser().parseFromString(html, 'text/html').body.textContent ?? '';
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
};

function DeleteDialog({
  field,
  onClose,
  onDone,
}: {
  field: CustomField;
  onClose: () => void;
  onDone: () => Promise<unknown>;
}) {
  const usage = useQuery(fieldUsageQuery(field.id));
  const remove = useMutation({
    mutationFn: () => deleteField(field.id),
    onSuccess: onClose,
    onSettled: onDone,
  });
  return (
    <ConfirmDialog
      title={`Delete ${field.name}?`}
      onClose={onClose}
      confirmLabel="Delete field"
      onConfirm={() => remove.mutate()}
      isPending={remove.isPending}
      isDisabled={!usage.isSuccess}
      error={remove.isError ? sentence(remove.error.message) : undefined}
    >
      {usage.isPending ? (
        <Loading label="Counting the test cases with a value…" />
      ) : usage.isError ? (
        <FormError message={`The values could not be counted: ${sentence(usage.error.message)}`} />
      ) : (
        <p>
          {usage.data.cases === 0
            ? 'No test case holds a value of this field: only the field goes.'
            : `${formatCountOf(usage.data.cases, 'test case')} (${formatCountOf(usage.data.versions, 'version')}) hold a value of this field: the values are removed from every version, and cannot be brought back.`}
        </p>
      )}
    </ConfirmDialog>
  );
}
