import { useId, useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Form } from 'react-aria-components';
import { queryKeys } from '../../../api/keys';
import { Button } from '../../../components/Button';
import { FormError } from '../../../components/FormError';
import { TextField } from '../../../components/TextField';
import { formatDuration } from '../../../lib/format';
import { useForm } from '../../../lib/useForm';
import {
  checkInWords,
  createIntegration,
  integrationErrorsOf,
  testTypedSettings,
  TYPES,
  updateIntegration,
  type ConfigKey,
  type CreateBody,
  type Integration,
  type IntegrationType,
  type TestSettingsBody,
  type UpdateBody,
} from './api';

interface Values {
  name: string;
  type: IntegrationType;
  config: Partial<Record<ConfigKey, string>>;
  token: string;
  removeToken: boolean;
}

/**
 * Creates an integration, or edits one (`editing`). The credential is write-only: a stored one is never shown,
 * the field says so, and leaving it empty keeps it. A refused save keeps everything typed.
 */
export function IntegrationForm({
  editing,
  onDone,
  onCancel,
}: {
  editing?: Integration;
  onDone: (message: string, id: string) => void;
  onCancel: () => void;
}) {
  const queryClient = useQueryClient();
  const typeId = useId();
  const save = useMutation({
    mutationFn: async (v: Values) => {
      const info = TYPES[v.type];
      if (!editing) {
        const config: NonNullable<CreateBody['config']> = {};
        for (const f of info.fields) {
          const value = v.config[f.key]?.trim();
          if (value) config[f.key] = value;
        }
        const body: CreateBody = { name: v.name.trim(), type: v.type, config };
        if (info.token !== 'none' && v.token !== '') body.token = v.token;
        return (await createIntegration(body)).id;
      }
      const body: UpdateBody = {};
      if (v.name.trim() !== editing.name) body.name = v.name.trim();
      const config: NonNullable<UpdateBody['config']> = {};
      for (const f of info.fields) {
        const value = (v.config[f.key] ?? '').trim();
        // An emptied setting is sent as it is: the service says beside the field that it cannot be empty.
        if (value !== (editing.config[f.key] ?? '')) config[f.key] = value;
      }
      if (Object.keys(config).length > 0) body.config = config;
      if (v.token !== '') body.token = v.token;
      else if (v.removeToken) body.token = null;
      await updateIntegration(editing.id, body);
      return editing.id;
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.adminIntegrations() }),
  });
  const form = useForm<Values>({
    initial: {
      name: editing?.name ?? '',
      type: editing?.type ?? 'tracker_a',
      config: { ...editing?.config },
      token: '',
      removeToken: false,
    },
    errors: integrationErrorsOf,
    submit: async (v) => {
      const id = await save.mutateAsync(v);
      // The projects' link lists show the integration's name.
      void queryClient.invalidateQueries({ queryKey: queryKeys.projects() });
      onDone(
        editing ? `Integration "${v.name.trim()}" saved.` : `Integration "${v.name.trim()}" created.`,
        id,
      );
    },
  });
  const { values } = form;
  const info = TYPES[values.type];
  const [check, setCheck] = useState<{ ok: boolean; text: string }>();
  const test = useMutation({
    mutationFn: (v: Values) => {
      const config: NonNullable<TestSettingsBody['config']> = {};
      for (const f of TYPES[v.type].fields) {
        const value = (v.config[f.key] ?? '').trim();
        // An emptied stored setting is sent empty, as a save sends it: refused beside its field.
        if (value !== '' || editing?.config[f.key]) config[f.key] = value;
      }
      const body: TestSettingsBody = { type: v.type, config };
      if (v.token !== '') body.token = v.token;
      // The stored credential is lent unless the form is about to remove it.
      if (editing && !(v.removeToken && v.token === '')) body.integrationId = editing.id;
      return testTypedSettings(body);
    },
    onMutate: () => {
      form.clearErrors();
      setCheck({ ok: true, text: 'Testing…' });
    },
    onSuccess: (r) => setCheck({ ok: r.ok, text: checkInWords(r, formatDuration) }),
    onError: (e) => {
      const errors = integrationErrorsOf(e);
      form.showErrors(errors);
      setCheck({
        ok: false,
        text: errors.form ?? 'Not tested: correct the settings marked above.',
      });
    },
  });
  const stored = editing?.hasToken === true;
  const setConfig = (key: ConfigKey, value: string) => {
    form.setValues((v) => ({ ...v, config: { ...v.config, [key]: value } }));
    form.fieldChanged(key);
    // "Send the credential again" answers an address on another origin: a changed address voids it.
    form.fieldChanged('token');
  };
  const title = editing ? `Edit ${editing.name}` : 'New integration';
  return (
    <section className="panel adm-form-panel" aria-label={title}>
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
        <div className="field">
          <label className="field-label" htmlFor={typeId}>
            Tracker type
          </label>
          <select
            id={typeId}
            className="field-input"
            value={values.type}
            disabled={editing !== undefined}
            aria-describedby={`${typeId}-hint`}
            onChange={(e) => form.set('type', e.target.value as IntegrationType)}
          >
            {(Object.keys(TYPES) as IntegrationType[]).map((t) => (
              <option key={t} value={t}>
                {TYPES[t].label}
              </option>
            ))}
          </select>
          <span id={`${typeId}-hint`} className="field-description">
            {info.hint}
            {editing ? ' The type of a saved integration does not change.' : ''}
          </span>
        </div>
        {info.fields.map((f) => (
          <TextField
            key={`${values.type}-${f.key}`}
            label={f.required ? f.label : `${f.label} (optional)`}
            name={f.key}
            type={f.type ?? 'text'}
            isRequired={f.required}
            description={f.description}
            value={values.config[f.key] ?? ''}
            onChange={(v) => setConfig(f.key, v)}
          />
        ))}
        {info.token !== 'none' && (
          <>
            <TextField
              label={
                stored
                  ? `${info.tokenLabel}: stored — replace`
                  : info.token === 'required'
                    ? info.tokenLabel
                    : `${info.tokenLabel} (optional)`
              }
              name="token"
              type="password"
              autoComplete="new-password"
              isRequired={!stored && info.token === 'required'}
              placeholder={stored ? 'stored — type a new one to replace it' : undefined}
              description={
                stored
                  ? 'A credential is stored and never shown. Leave this empty to keep it.'
                  : 'Stored encrypted and never shown again.'
              }
              value={values.token}
              onChange={(v) => form.set('token', v)}
            />
            {stored && info.token === 'optional' && (
              <label className="checkbox-field">
                <input
                  type="checkbox"
                  checked={values.removeToken}
                  disabled={values.token !== ''}
                  onChange={(e) => form.set('removeToken', e.target.checked)}
                />
                Remove the stored {info.tokenLabel.toLowerCase()}
              </label>
            )}
          </>
        )}
        <div className="adm-form-actions">
          <Button type="submit" variant="primary" isPending={form.submitting}>
            {editing ? 'Save integration' : 'Create integration'}
          </Button>
          {info.token !== 'none' && (
            <Button onPress={() => test.mutate(values)} isPending={test.isPending}>
              Test these settings
            </Button>
          )}
          <Button onPress={onCancel}>Cancel</Button>
        </div>
        {info.token !== 'none' && (
          <p
            className={check ? `adm-check ${check.ok ? 'adm-check-ok' : 'adm-check-bad'}` : 'adm-check-none'}
            role="status"
          >
            {check ? check.text : ''}
          </p>
        )}
      </Form>
    </section>
  );
}
