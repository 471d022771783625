import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { Form } from 'react-aria-components';
import { isApiError } from '../../api/client';
import { Button } from '../../components/Button';
import { Dialog } from '../../components/Dialog';
import { FormError } from '../../components/FormError';
import { RichTextField } from '../../components/rich-text/RichText';
import { TextField } from '../../components/TextField';
import { sentence, useForm, type FormErrors } from '../../lib/useForm';
import { canManageProjects, meQuery } from '../../session/session';
import { type Project, setProjectArchived, editProject, deleteProject } from './api';
import { queryKeys } from '../../api/keys';

/** Administration of one project (admins and the owner, D3): edit, archive / unarchive, delete. */
export function ProjectAdmin({ project }: { project: Project }) {
  const me = useQuery(meQuery).data;
  const queryClient = useQueryClient();
  const [open, setOpen] = useState<'edit' | 'delete'>();
  const archive = useMutation({
    mutationFn: () => setProjectArchived(project.code, !project.archivedAt),
    onSuccess: (p) => queryClient.setQueryData(queryKeys.project(project.code), p),
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.projects() }),
  });
  if (!me || !canManageProjects(me.role)) return null;

  return (
    <div className="project-admin">
      <Button onPress={() => setOpen('edit')}>Edit project</Button>
      <Button isPending={archive.isPending} onPress={() => archive.mutate()}>
        {project.archivedAt ? 'Unarchive' : 'Archive'}
      </Button>
      <Button variant="danger" onPress={() => setOpen('delete')}>
        Delete…
      </Button>
      {archive.isError && (
        <p className="form-error" role="alert">
          {sentence(archive.error.message)}
        </p>
      )}
      {open === 'edit' && <EditProjectDialog project={project} onClose={() => setOpen(undefined)} />}
      {open === 'delete' && <DeleteProjectDialog project={project} onClose={() => setOpen(undefined)} />}
    </div>
  );
}

interface LinkRow {
  key: number;
  url: string;
  text: string;
}
let nextKey = 0;

/** `/links/2/url` names one link's field (`link-url-2`); the rest name a top-level field. */
function projectErrorsOf(e: unknown): FormErrors {
  if (!isApiError(e)) return { form: 'The service could not be reached. Try again.', fields: {} };
  const fields: Record<string, string> = {};
  for (const d of e.body.details ?? []) {
    const m = /^\/links\/(\d+)\/(url|text)$/.exec(d.path);
    fields[m ? `link-${m[2]}-${m[1]}` : (d.path.split('/')[1] ?? '')] = d.message;
  }
  return Object.keys(fields).length ? { fields } : { form: sentence(e.message), fields: {} };
}

function EditProjectDialog({ project, onClose }: { project: Project; onClose: () => void }) {
  const queryClient = useQueryClient();
  const [title, setTitle] = useState(project.title);
  const [overviewTitle, setOverviewTitle] = useState(project.overviewTitle);
  const [description, setDescription] = useState(project.overviewDescription || project.description);
  const [links, setLinks] = useState<LinkRow[]>(project.links.map((l) => ({ ...l, key: nextKey++ })));
  const save = useMutation({
    mutationFn: () =>
      editProject(project.code, {
        title: title.trim(),
        overviewTitle: overviewTitle.trim(),
        overviewDescription: description,
        links: links.filter((l) => l.url.trim()).map((l) => ({ url: l.url.trim(), text: l.text.trim() })),
      }),
    onSuccess: (p) => {
      queryClient.setQueryData(queryKeys.project(project.code), p);
      void queryClient.invalidateQueries({ queryKey: queryKeys.projects() });
      onClose();
    },
  });
  const form = useForm({ submit: () => save.mutateAsync(), errors: projectErrorsOf });
  const update = (key: number, patch: Partial<LinkRow>) =>
    setLinks((rows) => rows.map((r) => (r.key === key ? { ...r, ...patch } : r)));
  const dirty =
    title !== project.title ||
    overviewTitle !== project.overviewTitle ||
    description !== (project.overviewDescription || project.description) ||
    JSON.stringify(links.map(({ url, text }) => ({ url, text }))) !== JSON.stringify(project.links);
  const close = () => {
    // Nothing typed is lost without asking.
    if (!dirty || window.confirm('Discard your changes to this project?')) onClose();
  };

  return (
    <Dialog
      title={`Edit ${project.code}`}
      isOpen
      onOpenChange={(o) => !o && close()}
      isDismissable={!save.isPending}
    >
      <FormError message={form.formError} />
      <Form className="form" validationErrors={form.fieldErrors} onSubmit={form.handleSubmit}>
        <TextField label="Title" name="title" isRequired autoFocus value={title} onChange={setTitle} />
        <TextField
          label="Overview heading"
          name="overviewTitle"
          value={overviewTitle}
          onChange={setOverviewTitle}
        />
        <RichTextField
          label="Description"
          value={description}
          onChange={setDescription}
          error={form.fieldErrors.overviewDescription}
        />
        <fieldset className="link-rows">
          <legend className="field-label">Links</legend>
          {links.length === 0 && <p className="muted">No links yet.</p>}
          {links.map((l, i) => (
            <div key={l.key} className="link-row">
              <TextField
                label={`Link ${i + 1} address`}
                name={`link-url-${i}`}
                type="url"
                isRequired
                value={l.url}
                onChange={(url) => update(l.key, { url })}
              />
              <TextField
                label={`Link ${i + 1} text`}
                name={`link-text-${i}`}
                value={l.text}
                onChange={(text) => update(l.key, { text })}
              />
              <Button
                variant="ghost"
                aria-label={`Remove link ${i + 1}`}
                onPress={() => setLinks((rows) => rows.filter((r) => r.key !== l.key))}
              >
                Remove
              </Button>
            </div>
          ))}
          <Button onPress={() => setLinks((rows) => [...rows, { key: nextKey++, url: '', text: '' }])}>
            Add a link
          </Button>
        </fieldset>
        <div className="dialog-actions">
          <Button onPress={close} isDisabled={save.isPending}>
            Cancel
          </Button>
          <Button type="submit" variant="primary" isPending={save.isPending}>
            Save
          </Button>
        </div>
      </Form>
    </Dialog>
  );
}

function DeleteProjectDialog({ project, onClose }: { project: Project; onClose: () => void }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [typed, setTyped] = useState('');
  const remove = useMutation({
    mutationFn: () => deleteProject(project.code),
    onSuccess: async () => {
      queryClient.removeQueries({ queryKey: queryKeys.project(project.code) });
      await queryClient.invalidateQueries({ queryKey: queryKeys.projects() });
      await navigate({ to: '/', replace: true });
    },
  });
  const matches = typed.trim().toUpperCase() === project.code.toUpperCase();
  return (
    <Dialog
      title={`Delete ${project.title}?`}
      isOpen
      onOpenChange={(o) => !o && onClose()}
      isDismissable={!remove.isPending}
    >
      <p>
        This deletes the project <strong>{project.code}</strong> with all its test cases, runs, results and
        files. It cannot be undone. Archive the project instead to keep it readable.
      </p>
      {remove.isError && (
        <p className="form-error" role="alert">
          {sentence(remove.error.message)}
        </p>
      )}
      <Form
        className="form"
        onSubmit={(e) => {
          e.preventDefault();
          if (matches) remove.mutate();
        }}
      >
        <TextField
          label={`Type ${project.code} to confirm`}
          name="confirm"
          autoComplete="off"
          autoFocus
          value={typed}
          onChange={setTyped}
        />
        <div className="dialog-actions">
          <Button slot="close" isDisabled={remove.isPending}>
            Cancel
          </Button>
          <Button type="submit" variant="danger" isDisabled={!matches} isPending={remove.isPending}>
            Delete project
          </Button>
        </div>
      </Form>
    </Dialog>
  );
}
