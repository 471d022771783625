import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Form } from 'react-aria-components';
import { isApiError } from '../../../api/client';
import { Button } from '../../../components/Button';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { FormError } from '../../../components/FormError';
import { SelectField } from '../../../components/SelectField';
import { EmptyState, ErrorState, Loading } from '../../../components/Status';
import { TextField } from '../../../components/TextField';
import { FieldProblem, fieldProblemOr } from '../../../lib/field-problem';
import { formatDate } from '../../../lib/format';
import { sentence, useForm, type FormErrors } from '../../../lib/useForm';
import { isAdmin, type Me } from '../../../session/session';
import type { Project } from '../api';
import {
  integrationsQuery,
  LINK_FIELDS,
  linkIntegration,
  projectIntegrationsQuery,
  TRACKER_TYPE_NAMES,
  unlinkIntegration,
  type Integration,
  type LinkConfig,
  type ProjectIntegration,
} from './api';

/**
 * The issue trackers the project files and links issues in (one per tracker type). Everyone reads the list; admins
 * link and unlink (the trackers themselves are set up on the service's Integrations page).
 */
export function TrackerLinksSection({ project, me }: { project: Project; me: Me }) {
  const code = project.code;
  const links = useQuery(projectIntegrationsQuery(code));
  const [unlinking, setUnlinking] = useState<ProjectIntegration>();
  const admin = isAdmin(me.role) && !project.archivedAt;
  if (links.isPending) return <Loading label="Loading the issue trackers…" />;
  if (links.isError)
    return (
      <ErrorState
        title="The issue trackers could not be loaded."
        error={links.error}
        onRetry={() => links.refetch()}
      />
    );
  return (
    <>
      <p className="muted settings-lede">
        A failed result can file an issue in a linked tracker, and links to its issues open there.
      </p>
      {links.data.length === 0 ? (
        <EmptyState title="No issue tracker is linked.">{!admin && <p>An admin can link one.</p>}</EmptyState>
      ) : (
        <ul className="share-list" aria-label="Linked issue trackers">
          {links.data.map((l) => (
            <li key={l.integrationId} className="share-row">
              <div className="share-what">
                <p>
                  <strong>{l.name}</strong> <span className="muted">· {TRACKER_TYPE_NAMES[l.type]}</span>
                </p>
                <p className="muted">
                  {LINK_FIELDS[l.type]
                    .map((f) => `${f.label}: ${l.config[f.key] ?? '—'}`)
                    .concat(`linked ${formatDate(l.createdAt)}`)
                    .join(' · ')}
                </p>
              </div>
              {admin && (
                <Button aria-label={`Unlink ${l.name}`} onPress={() => setUnlinking(l)}>
                  Unlink…
                </Button>
              )}
            </li>
          ))}
        </ul>
      )}
      {admin && <LinkTracker code={code} linked={links.data} />}
      {unlinking && <UnlinkDialog code={code} link={unlinking} onClose={() => setUnlinking(undefined)} />}
    </>
  );
}

/** `/config/repo` is the Repository field's (`config-repo`); the rest as usual. */
function linkErrorsOf(e: unknown): FormErrors {
  if (!isApiError(e)) return fieldProblemOr(e);
  const fields: Record<string, string> = {};
  for (const d of e.body.details ?? []) {
    const m = /^\/config\/(\w+)/.exec(d.path);
    fields[m ? `config-${m[1]}` : (d.path.split('/')[1] ?? '')] ??= sentence(d.message);
  }
  return Object.keys(fields).length ? { fields } : { form: sentence(e.message), fields: {} };
}

function LinkTracker({ code, linked }: { code: string; linked: ProjectIntegration[] }) {
  const queryClient = useQueryClient();
  const all = useQuery(integrationsQuery);
  const [integrationId, setIntegrationId] = useState('');
  const [config, setConfig] = useState<LinkConfig>({});
  const [done, setDone] = useState('');
  const chosen: Integration | undefined = all.data?.find((i) => i.id === integrationId);
  const form = useForm({
    submit: async () => {
      setDone('');
      if (!chosen) throw new FieldProblem('integrationId', 'Choose the tracker to link.');
      const body: LinkConfig = {};
      for (const f of LINK_FIELDS[chosen.type]) {
        const v = (config[f.key] ?? '').trim();
        if (!v) throw new FieldProblem(`config-${f.key}`, `${f.label} is needed for this tracker.`);
        body[f.key] = v;
      }
      await linkIntegration(code, chosen.id, body);
      setDone(`${chosen.name} is linked.`);
      setIntegrationId('');
      setConfig({});
      await queryClient.invalidateQueries({ queryKey: projectIntegrationsQuery(code).queryKey });
    },
    errors: linkErrorsOf,
  });
  if (all.isPending) return <Loading label="Loading the service's trackers…" />;
  if (all.isError)
    return (
      <ErrorState title="The trackers could not be loaded." error={all.error} onRetry={() => all.refetch()} />
    );
  if (all.data.length === 0)
    return <p className="muted">The service has no issue tracker set up yet: an admin adds one first.</p>;
  const replaced = chosen && linked.find((l) => l.type === chosen.type && l.integrationId !== chosen.id);
  return (
    <Form {...form.formProps} className="form settings-inline-form" validationBehavior="aria">
      <h3 className="settings-subtitle">Link a tracker</h3>
      <FormError message={form.formError} />
      <SelectField
        label="Tracker"
        name="integrationId"
        placeholder="Choose a tracker…"
        value={integrationId}
        onChange={(v) => {
          form.fieldChanged('integrationId');
          setIntegrationId(v);
        }}
        options={all.data.map((i) => ({ value: i.id, label: `${i.name} (${TRACKER_TYPE_NAMES[i.type]})` }))}
        error={form.fieldErrors.integrationId}
      />
      {chosen &&
        LINK_FIELDS[chosen.type].map((f) => (
          <TextField
            key={f.key}
            label={f.label}
            name={`config-${f.key}`}
            isRequired
            value={config[f.key] ?? ''}
            onChange={(v) => {
              form.fieldChanged(`config-${f.key}`);
              setConfig((c) => ({ ...c, [f.key]: v }));
            }}
          />
        ))}
      {replaced && (
        <p className="notice" role="note">
          A project has one tracker of each type: linking {chosen.name} replaces {replaced.name}.
        </p>
      )}
      <div className="form-row">
        <Button type="submit" variant="primary" isPending={form.submitting}>
          Link tracker
        </Button>
        <p className="settings-saved" role="status">
          {done}
        </p>
      </div>
    </Form>
  );
}

function UnlinkDialog({
  code,
  link,
  onClose,
}: {
  code: string;
  link: ProjectIntegration;
  onClose: () => void;
}) {
  const queryClient = useQueryClient();
  const unlink = useMutation({
    mutationFn: () => unlinkIntegration(code, link.integrationId),
    onSuccess: onClose,
    onSettled: () => queryClient.invalidateQueries({ queryKey: projectIntegrationsQuery(code).queryKey }),
  });
  return (
    <ConfirmDialog
      title={`Unlink ${link.name}?`}
      onClose={onClose}
      confirmLabel="Unlink tracker"
      onConfirm={() => unlink.mutate()}
      isPending={unlink.isPending}
      error={unlink.isError ? sentence(unlink.error.message) : undefined}
    >
      <p>
        Results of this project no longer file issues in {link.name}. Issues already filed stay in the
        tracker, and the results keep their links to them.
      </p>
    </ConfirmDialog>
  );
}
