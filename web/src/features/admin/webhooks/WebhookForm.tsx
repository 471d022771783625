import { useId } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Form } from 'react-aria-components';
import { queryKeys } from '../../../api/keys';
import { Button } from '../../../components/Button';
import { FormError } from '../../../components/FormError';
import { TextField } from '../../../components/TextField';
import { useForm } from '../../../lib/useForm';
import { projectsQuery } from '../../projects';
import {
  createWebhook,
  EVENTS,
  updateWebhook,
  webhookErrorsOf,
  type CreateBody,
  type EventType,
  type UpdateBody,
  type Webhook,
} from './api';
import { PayloadField } from './PayloadField';

interface Values {
  name: string;
  endpoint: string;
  eventTypes: EventType[];
  allProjects: boolean;
  projectIds: string[];
  secret: string;
  removeSecret: boolean;
  headers: string;
  removeHeaders: boolean;
  payload: string;
  enabled: boolean;
}

/** "Name: value" lines into a header map; a line without a colon is the field's error, in words. */
export function parseHeaders(text: string): Record<string, string> | string {
  const out: Record<string, string> = {};
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  for (const [i, line] of lines.entries()) {
    const colon = line.indexOf(':');
    if (colon <= 0) return `Line ${i + 1} is not "Name: value".`;
    out[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return out;
}

/** Creates a webhook or edits one; the secret and header values are write-only, empty keeps the stored ones. */
export function WebhookForm({
  editing,
  onDone,
  onCancel,
}: {
  editing?: Webhook;
  onDone: (message: string, id: string) => void;
  onCancel?: () => void;
}) {
  const queryClient = useQueryClient();
  const projects = useQuery(projectsQuery);
  const ids = { events: useId(), projects: useId() };
  const save = useMutation({
    mutationFn: async (v: Values) => {
      const headers = v.headers.trim() === '' ? undefined : parseHeaders(v.headers);
      if (typeof headers === 'string') throw Object.assign(new Error(headers), { local: 'headers' });
      if (!editing) {
        const body: CreateBody = {
          name: v.name.trim(),
          endpoint: v.endpoint.trim(),
          eventTypes: v.eventTypes,
          allowAllProjects: v.allProjects,
          enabled: v.enabled,
        };
        if (!v.allProjects) body.projectIds = v.projectIds;
        if (v.secret !== '') body.secret = v.secret;
        if (headers) body.headers = headers;
        if (v.payload.trim() !== '') body.payload = v.payload;
        return (await createWebhook(body)).id;
      }
      const body: UpdateBody = {};
      if (v.name.trim() !== editing.name) body.name = v.name.trim();
      if (v.endpoint.trim() !== editing.endpoint) body.endpoint = v.endpoint.trim();
      if ([...v.eventTypes].sort().join() !== [...editing.eventTypes].sort().join())
        body.eventTypes = v.eventTypes;
      if (v.allProjects !== editing.allowAllProjects) body.allowAllProjects = v.allProjects;
      if (!v.allProjects && [...v.projectIds].sort().join() !== [...editing.projectIds].sort().join())
        body.projectIds = v.projectIds;
      if (v.secret !== '') body.secret = v.secret;
      else if (v.removeSecret) body.secret = null;
      if (headers) body.headers = headers;
      else if (v.removeHeaders) body.headers = null;
      const payload = v.payload.trim() === '' ? null : v.payload;
      if (payload !== editing.payload) body.payload = payload;
      if (v.enabled !== editing.enabled) body.enabled = v.enabled;
      if (Object.keys(body).length > 0) await updateWebhook(editing.id, body);
      return editing.id;
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.webhooks() }),
  });
  const form = useForm<Values>({
    initial: {
      name: editing?.name ?? '',
      endpoint: editing?.endpoint ?? '',
      eventTypes: editing?.eventTypes ?? ['run_created'],
      allProjects: editing?.allowAllProjects ?? true,
      projectIds: editing?.projectIds ?? [],
      secret: '',
      removeSecret: false,
      headers: '',
      removeHeaders: false,
      payload: editing?.payload ?? '',
      enabled: editing?.enabled ?? true,
    },
    errors: (e) =>
      e instanceof Error && 'local' in e ? { fields: { [String(e.local)]: e.message } } : webhookErrorsOf(e),
    submit: async (v) => {
      if (v.eventTypes.length === 0)
        throw Object.assign(new Error('Choose at least one event.'), { local: 'eventTypes' });
      const id = await save.mutateAsync(v);
      onDone(editing ? `Webhook "${v.name.trim()}" saved.` : `Webhook "${v.name.trim()}" created.`, id);
    },
  });
  const { values, fieldErrors } = form;
  const errorOf = (f: string) => fieldErrors[f];
  const toggle = <T,>(list: T[], item: T, on: boolean) =>
    on ? [...list, item] : list.filter((x) => x !== item);
  const title = editing ? 'Settings' : 'New webhook';
  return (
    <section className="panel" aria-label={title}>
      <h2 className="panel-title">{title}</h2>
      <FormError message={form.formError} />
      <Form className="form adm-form" {...form.formProps}>
        <TextField
          label="Name"
          name="name"
          isRequired
          maxLength={255}
          value={values.name}
          onChange={(v) => form.set('name', v)}
        />
        <TextField
          label="Endpoint"
          name="endpoint"
          type="url"
          isRequired
          description="The https address the events are posted to."
          value={values.endpoint}
          onChange={(v) => form.set('endpoint', v)}
        />
        <fieldset
          className="adm-fieldset"
          aria-describedby={errorOf('eventTypes') ? `${ids.events}-err` : undefined}
        >
          <legend className="field-label">Events</legend>
          <div className="adm-checks">
            {EVENTS.map((e) => (
              <label key={e.type} className="checkbox-field">
                <input
                  type="checkbox"
                  checked={values.eventTypes.includes(e.type)}
                  onChange={(ev) =>
                    form.set('eventTypes', toggle(values.eventTypes, e.type, ev.target.checked))
                  }
                />
                {e.label}
              </label>
            ))}
          </div>
          {errorOf('eventTypes') && (
            <span id={`${ids.events}-err`} className="field-error" role="alert">
              {errorOf('eventTypes')}
            </span>
          )}
        </fieldset>
        <fieldset
          className="adm-fieldset"
          aria-describedby={errorOf('projectIds') ? `${ids.projects}-err` : undefined}
        >
          <legend className="field-label">Projects</legend>
          <label className="checkbox-field">
            <input
              type="radio"
              name="scope"
              checked={values.allProjects}
              onChange={() => form.set('allProjects', true)}
            />
            Every project, new ones too
          </label>
          <label className="checkbox-field">
            <input
              type="radio"
              name="scope"
              checked={!values.allProjects}
              onChange={() => form.set('allProjects', false)}
            />
            Only these projects:
          </label>
          {!values.allProjects && (
            <div className="adm-checks adm-indent">
              {(projects.data ?? []).map((p) => (
                <label key={p.id} className="checkbox-field">
                  <input
                    type="checkbox"
                    checked={values.projectIds.includes(p.id)}
                    onChange={(ev) =>
                      form.set('projectIds', toggle(values.projectIds, p.id, ev.target.checked))
                    }
                  />
                  {p.code} — {p.title}
                </label>
              ))}
            </div>
          )}
          {errorOf('projectIds') && (
            <span id={`${ids.projects}-err`} className="field-error" role="alert">
              {errorOf('projectIds')}
            </span>
          )}
        </fieldset>
        <TextField
          label={editing?.hasSecret ? 'Signing secret: stored — replace' : 'Signing secret (optional)'}
          name="secret"
          type="password"
          autoComplete="new-password"
          placeholder={editing?.hasSecret ? 'stored — type a new one to replace it' : undefined}
          description={
            editing?.hasSecret
              ? 'A secret is stored and never shown. Leave this empty to keep it.'
              : 'At least 8 characters. Each delivery is signed with it (HMAC-SHA256); never shown again.'
          }
          value={values.secret}
          onChange={(v) => form.set('secret', v)}
        />
        {editing?.hasSecret && (
          <label className="checkbox-field">
            <input
              type="checkbox"
              checked={values.removeSecret}
              disabled={values.secret !== ''}
              onChange={(e) => form.set('removeSecret', e.target.checked)}
            />
            Remove the stored secret (deliveries are then unsigned)
          </label>
        )}
        <TextField
          label={
            editing && editing.headerNames.length > 0
              ? `Extra headers: ${editing.headerNames.join(', ')} stored — replace`
              : 'Extra headers (optional)'
          }
          name="headers"
          multiline
          description={
            editing && editing.headerNames.length > 0
              ? 'Their values are never shown. Type every header again to replace them all; empty keeps them.'
              : 'One "Name: value" per line, e.g. Authorization: Bearer …; values are never shown again.'
          }
          value={values.headers}
          onChange={(v) => form.set('headers', v)}
        />
        {editing && editing.headerNames.length > 0 && (
          <label className="checkbox-field">
            <input
              type="checkbox"
              checked={values.removeHeaders}
              disabled={values.headers.trim() !== ''}
              onChange={(e) => form.set('removeHeaders', e.target.checked)}
            />
            Remove the stored headers
          </label>
        )}
        <PayloadField
          value={values.payload}
          onChange={(v) => form.set('payload', v)}
          eventTypes={values.eventTypes}
        />
        <label className="checkbox-field">
          <input
            type="checkbox"
            checked={values.enabled}
            onChange={(e) => form.set('enabled', e.target.checked)}
          />
          Enabled: send events as they happen
        </label>
        <div className="adm-form-actions">
          <Button type="submit" variant="primary" isPending={form.submitting}>
            {editing ? 'Save webhook' : 'Create webhook'}
          </Button>
          {onCancel && <Button onPress={onCancel}>Cancel</Button>}
        </div>
      </Form>
    </section>
  );
}
