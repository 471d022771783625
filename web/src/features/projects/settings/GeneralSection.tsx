import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Form } from 'react-aria-components';
import { isApiError } from '../../../api/client';
import { queryKeys } from '../../../api/keys';
import { Button } from '../../../components/Button';
import { FormError } from '../../../components/FormError';
import { RichTextField } from '../../../components/rich-text/RichText';
import { SafeHtml } from '../../../components/rich-text/SafeHtml';
import { TextField } from '../../../components/TextField';
import { sentence, useForm, type FormErrors } from '../../../lib/useForm';
import { isAdmin, type Me } from '../../../session/session';
import { editProject, type Project } from '../api';
import { ArchiveProject, DeleteProject } from './DangerZone';

/** Title, overview, links: admins edit them (D3); everyone else reads them. The code never changes. */
export function GeneralSection({ project, me }: { project: Project; me: Me }) {
  const admin = isAdmin(me.role);
  return (
    <>
      {admin && !project.archivedAt ? <EditGeneral project={project} /> : <ReadGeneral project={project} />}
      {admin && <ExportProject project={project} />}
      {admin && (
        <div className="settings-danger">
          <ArchiveProject project={project} />
          <DeleteProject project={project} />
        </div>
      )}
    </>
  );
}

/** The whole project as a Casebook archive (a plain download: the session cookie goes with it). */
function ExportProject({ project }: { project: Project }) {
  const url = `/api/public/v0/project/${encodeURIComponent(project.code)}/export?format=casebook`;
  return (
    <div className="danger-row settings-export">
      <div>
        <h3 className="danger-title">Export this project</h3>
        <p className="muted">
          One file with everything in it — test cases with every version, runs, results, files — to import
          into another Casebook (Administration → Import a project). No passwords or keys are in it.
        </p>
      </div>
      <a className="btn btn-secondary" href={url} download>
        Export project
      </a>
    </div>
  );
}

function ReadGeneral({ project }: { project: Project }) {
  const description = project.overviewDescription || project.description;
  return (
    <>
      {project.archivedAt && (
        <p className="notice settings-note" role="note">
          This project is archived: it is read-only until it is unarchived.
        </p>
      )}
      <dl className="settings-facts">
        <div>
          <dt>Code</dt>
          <dd>
            <span className="project-code">{project.code}</span>
          </dd>
        </div>
        <div>
          <dt>Title</dt>
          <dd>{project.title}</dd>
        </div>
        <div>
          <dt>Overview heading</dt>
          <dd>{project.overviewTitle || <span className="muted">None</span>}</dd>
        </div>
        <div>
          <dt>Description</dt>
          <dd>{description ? <SafeHtml html={description} /> : <span className="muted">None</span>}</dd>
        </div>
        <div>
          <dt>Links</dt>
          <dd>
            {project.links.length === 0 ? (
              <span className="muted">None</span>
            ) : (
              <ul className="link-list">
                {project.links.map((l) => (
                  <li key={l.url + l.text}>
                    <a href={l.url} target="_blank" rel="noreferrer noopener">
                      {l.text || l.url}
                    </a>
                  </li>
                ))}
              </ul>
            )}
          </dd>
        </div>
      </dl>
    </>
  );
}

interface LinkRow {
  key: number;
  url: string;
  text: string;
}
let nextKey = 0;

/**
 * `/links/2/url` names the third link sent, which is row `rows[2]` of the form (rows without an address are not
 * sent): its field is `link-url-<row>`; the rest name a top-level field.
 */
function projectErrorsOf(e: unknown, rows: number[]): FormErrors {
  if (!isApiError(e)) return { form: 'The service could not be reached. Try again.', fields: {} };
  const fields: Record<string, string> = {};
  for (const d of e.body.details ?? []) {
    const m = /^\/links\/(\d+)\/(url|text)$/.exec(d.path);
    fields[m ? `link-${m[2]}-${rows[Number(m[1])]}` : (d.path.split('/')[1] ?? '')] = sentence(d.message);
  }
  return Object.keys(fields).length ? { fields } : { form: sentence(e.message), fields: {} };
}

function EditGeneral({ project }: { project: Project }) {
  const queryClient = useQueryClient();
  const [title, setTitle] = useState(project.title);
  const [overviewTitle, setOverviewTitle] = useState(project.overviewTitle);
  const [description, setDescription] = useState(project.overviewDescription || project.description);
  const [links, setLinks] = useState<LinkRow[]>(project.links.map((l) => ({ ...l, key: nextKey++ })));
  const [saved, setSaved] = useState('');
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
      setSaved('Saved.');
    },
  });
  // A refused value is shown beside its field; everything typed stays in the form.
  const form = useForm({
    submit: () => {
      setSaved('');
      return save.mutateAsync();
    },
    errors: (e) =>
      projectErrorsOf(
        e,
        links.flatMap((l, i) => (l.url.trim() ? [i] : [])),
      ),
  });
  const update = (key: number, patch: Partial<LinkRow>) =>
    setLinks((rows) => rows.map((r) => (r.key === key ? { ...r, ...patch } : r)));

  return (
    <>
      <FormError message={form.formError} />
      {/* The service checks every value; a refused value's message goes as it is typed in (useForm). */}
      <Form {...form.formProps} className="form" validationBehavior="aria">
        <div className="field">
          <span className="field-label" id="project-code-label">
            Code
          </span>
          <p aria-labelledby="project-code-label">
            <span className="project-code">{project.code}</span>{' '}
            <span className="muted">Test case and run addresses use it, so it never changes.</span>
          </p>
        </div>
        <TextField label="Title" name="title" isRequired value={title} onChange={setTitle} />
        <TextField
          label="Overview heading"
          name="overviewTitle"
          value={overviewTitle}
          onChange={setOverviewTitle}
        />
        <RichTextField
          label="Description"
          value={description}
          onChange={(v) => {
            form.fieldChanged('overviewDescription');
            setDescription(v);
          }}
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
                inputMode="url"
                description={l.url.trim() ? undefined : 'A link without an address is not saved.'}
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
        <div className="form-row">
          <Button type="submit" variant="primary" isPending={save.isPending}>
            Save
          </Button>
          <p className="settings-saved" role="status">
            {saved}
          </p>
        </div>
      </Form>
    </>
  );
}
