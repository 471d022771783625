import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Form } from 'react-aria-components';
import { Button } from '../../../components/Button';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { Dialog } from '../../../components/Dialog';
import { FormError } from '../../../components/FormError';
import { ErrorState, Loading } from '../../../components/Status';
import { TextField } from '../../../components/TextField';
import { FieldProblem, fieldProblemOr } from '../../../lib/field-problem';
import { sentence, useForm } from '../../../lib/useForm';
import type { Me } from '../../../session/session';
import type { Project } from '../api';
import { formatCount, formatCountOf } from '../../../lib/format';
import {
  configurationUsageQuery,
  configurationsQuery,
  createConfiguration,
  deleteConfiguration,
  renameConfiguration,
  type Configuration,
} from './api';

/** The environments a run is made for (a browser, an operating system): test runners and up keep the list. */
export function ConfigurationsSection({ project }: { project: Project; me: Me }) {
  const code = project.code;
  const list = useQuery(configurationsQuery(code));
  const [renaming, setRenaming] = useState<Configuration>();
  const [deleting, setDeleting] = useState<Configuration>();
  if (list.isPending) return <Loading label="Loading the configurations…" />;
  if (list.isError)
    return (
      <ErrorState
        title="The configurations could not be loaded."
        error={list.error}
        onRetry={() => list.refetch()}
      />
    );
  const editable = !project.archivedAt;
  return (
    <>
      <p className="muted settings-lede">
        A run may name the configuration it tests (“Chrome on Linux”), so reports can compare runs of the same
        one.
      </p>
      {list.data.configurations.length === 0 ? (
        <p className="muted">No configurations yet.</p>
      ) : (
        <ul className="share-list" aria-label="Configurations">
          {list.data.configurations.map((c) => (
            <li key={c.id} className="share-row">
              <div className="share-what">
                <p>{c.title}</p>
              </div>
              {editable && (
                <div className="row-actions">
                  <Button aria-label={`Rename ${c.title}`} onPress={() => setRenaming(c)}>
                    Rename…
                  </Button>
                  <Button aria-label={`Delete ${c.title}`} onPress={() => setDeleting(c)}>
                    Delete…
                  </Button>
                </div>
              )}
            </li>
          ))}
        </ul>
      )}
      {editable && <NewConfiguration code={code} />}
      {renaming && <RenameDialog code={code} config={renaming} onClose={() => setRenaming(undefined)} />}
      {deleting && <DeleteDialog code={code} config={deleting} onClose={() => setDeleting(undefined)} />}
    </>
  );
}

const checkedTitle = (raw: string) => {
  const title = raw.trim();
  if (!title) throw new FieldProblem('title', 'Give the configuration a title.');
  return title;
};

function NewConfiguration({ code }: { code: string }) {
  const queryClient = useQueryClient();
  const [title, setTitle] = useState('');
  const [added, setAdded] = useState('');
  const form = useForm({
    submit: async () => {
      setAdded('');
      const t = checkedTitle(title);
      await createConfiguration(code, t);
      setTitle('');
      setAdded(`“${t}” added.`);
      await queryClient.invalidateQueries({ queryKey: configurationsQuery(code).queryKey });
    },
    errors: fieldProblemOr,
  });
  return (
    <Form {...form.formProps} className="form settings-inline-form" validationBehavior="aria">
      <FormError message={form.formError} />
      <TextField
        label="New configuration"
        name="title"
        placeholder="Chrome on Linux"
        value={title}
        onChange={(v) => {
          form.fieldChanged('title');
          setTitle(v);
        }}
      />
      <div className="form-row">
        <Button type="submit" variant="primary" isPending={form.submitting}>
          Add configuration
        </Button>
        <p className="settings-saved" role="status">
          {added}
        </p>
      </div>
    </Form>
  );
}

function RenameDialog({
  code,
  config,
  onClose,
}: {
  code: string;
  config: Configuration;
  onClose: () => void;
}) {
  const queryClient = useQueryClient();
  const [title, setTitle] = useState(config.title);
  const form = useForm({
    submit: async () => {
      await renameConfiguration(code, config.id, checkedTitle(title));
      await queryClient.invalidateQueries({ queryKey: configurationsQuery(code).queryKey });
      onClose();
    },
    errors: fieldProblemOr,
  });
  return (
    <Dialog
      title={`Rename ${config.title}`}
      isOpen
      onOpenChange={(o) => !o && onClose()}
      isDismissable={!form.submitting}
    >
      <Form {...form.formProps} className="form" validationBehavior="aria">
        <FormError message={form.formError} />
        <TextField
          label="Title"
          name="title"
          autoFocus
          value={title}
          onChange={(v) => {
            form.fieldChanged('title');
            setTitle(v);
          }}
        />
        <p className="muted">Runs made for it show the new title.</p>
        <div className="dialog-actions">
          <Button slot="close" isDisabled={form.submitting}>
            Cancel
          </Button>
          <Button type="submit" variant="primary" isPending={form.submitting}>
            Rename
          </Button>
        </div>
      </Form>
    </Dialog>
  );
}

function DeleteDialog({
  code,
  config,
  onClose,
}: {
  code: string;
  config: Configuration;
  onClose: () => void;
}) {
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: () => deleteConfiguration(code, config.id),
    onSuccess: onClose,
    onSettled: () => queryClient.invalidateQueries({ queryKey: configurationsQuery(code).queryKey }),
  });
  return (
    <ConfirmDialog
      title={`Delete ${config.title}?`}
      onClose={onClose}
      confirmLabel="Delete configuration"
      onConfirm={() => remove.mutate()}
      isPending={remove.isPending}
      error={remove.isError ? sentence(remove.error.message) : undefined}
    >
      <p>The configuration “{config.title}” goes.</p>
      <UsedBy code={code} id={config.id} />
    </ConfirmDialog>
  );
}

/** How many runs the deletion leaves without a configuration, in words. */
function UsedBy({ code, id }: { code: string; id: string }) {
  const usage = useQuery(configurationUsageQuery(code, id));
  if (usage.isPending)
    return (
      <p className="muted" role="status">
        Counting the runs that use it…
      </p>
    );
  if (usage.isError)
    return <p>Runs made for it keep their results and show no configuration from then on.</p>;
  const { runs, openRuns } = usage.data;
  if (runs === 0) return <p>No run uses it.</p>;
  return (
    <p>
      <strong>
        {formatCountOf(runs, 'run uses', 'runs use')} it
        {openRuns === 0 ? '' : runs === 1 ? ' (still open)' : ` (${formatCount(openRuns)} still open)`}
      </strong>
      : {runs === 1 ? 'it keeps its' : 'they keep their'} results and {runs === 1 ? 'shows' : 'show'} no
      configuration from then on.
    </p>
  );
}
