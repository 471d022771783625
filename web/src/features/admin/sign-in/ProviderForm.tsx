import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Form } from 'react-aria-components';
import { queryKeys } from '../../../api/keys';
import { Button } from '../../../components/Button';
import { FormError } from '../../../components/FormError';
import { SelectField } from '../../../components/SelectField';
import { TextField } from '../../../components/TextField';
import { useForm } from '../../../lib/useForm';
import { projectsQuery } from '../../projects';
import {
  createProvider,
  providerErrorsOf,
  ROLES,
  updateProvider,
  type CreateBody,
  type GrantableRole,
  type Provider,
  type UpdateBody,
} from './api';
import { ProjectRulesEditor, RoleRulesEditor, type ProjectRuleRow, type RoleRuleRow } from './RulesEditor';

interface Values {
  name: string;
  issuer: string;
  clientId: string;
  clientSecret: string;
  enabled: boolean;
  justInTime: boolean;
  defaultRole: GrantableRole;
  scopes: string;
  nameClaim: string;
  groupsClaim: string;
  roleRules: RoleRuleRow[];
  projectRules: ProjectRuleRow[];
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Adds an OpenID Connect provider or changes one. The client secret is write-only: a stored one is never shown,
 * empty keeps it, and a changed issuer asks for it again (the service refuses the change without it).
 */
export function ProviderForm({
  editing,
  onDone,
  onCancel,
}: {
  editing?: Provider;
  onDone: (message: string, provider: Provider) => void;
  onCancel?: () => void;
}) {
  const queryClient = useQueryClient();
  const projects = useQuery(projectsQuery).data ?? [];
  const save = useMutation({
    mutationFn: async (v: Values) => {
      const scopes = v.scopes.split(/[\s,]+/).filter(Boolean);
      const common = {
        name: v.name.trim(),
        issuer: v.issuer.trim(),
        clientId: v.clientId.trim(),
        enabled: v.enabled,
        justInTime: v.justInTime,
        defaultRole: v.defaultRole,
        scopes,
        nameClaim: v.nameClaim.trim(),
        groupsClaim: v.groupsClaim.trim(),
        roleRules: v.roleRules.map((r) => ({ group: r.group.trim(), role: r.role })),
        projectRules: v.projectRules.map((r) => ({ group: r.group.trim(), projects: r.projectIds })),
      };
      if (!editing) {
        const body: CreateBody = { ...common, clientSecret: v.clientSecret };
        return createProvider(body);
      }
      const body: UpdateBody = {};
      const was = {
        name: editing.name,
        issuer: editing.issuer,
        clientId: editing.clientId,
        enabled: editing.enabled,
        justInTime: editing.justInTime,
        defaultRole: editing.defaultRole,
        scopes: editing.scopes,
        nameClaim: editing.nameClaim,
        groupsClaim: editing.groupsClaim,
        roleRules: editing.roleRules,
        projectRules: editing.projectRules.map((r) => ({ group: r.group, projects: r.projectIds })),
      };
      for (const key of Object.keys(common) as (keyof typeof common)[]) {
        if (!same(common[key], was[key])) Object.assign(body, { [key]: common[key] });
      }
      if (v.clientSecret !== '') body.clientSecret = v.clientSecret;
      if (Object.keys(body).length === 0) return editing;
      return updateProvider(editing.id, body);
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.oidcProviders() }),
  });
  const form = useForm<Values>({
    initial: {
      name: editing?.name ?? '',
      issuer: editing?.issuer ?? '',
      clientId: editing?.clientId ?? '',
      clientSecret: '',
      enabled: editing?.enabled ?? false,
      justInTime: editing?.justInTime ?? false,
      defaultRole: (editing?.defaultRole as GrantableRole | undefined) ?? 'test-runner',
      scopes: (editing?.scopes ?? ['groups']).join(' '),
      nameClaim: editing?.nameClaim ?? 'name',
      groupsClaim: editing?.groupsClaim ?? 'groups',
      roleRules: (editing?.roleRules ?? []) as RoleRuleRow[],
      projectRules: (editing?.projectRules ?? []).map((r) => ({ group: r.group, projectIds: r.projectIds })),
    },
    errors: providerErrorsOf,
    submit: async (v) => {
      const saved = await save.mutateAsync(v);
      onDone(editing ? `Provider "${saved.name}" saved.` : `Provider "${saved.name}" added.`, saved);
    },
  });
  const { values, fieldErrors } = form;
  const issuerChanged = editing !== undefined && values.issuer.trim() !== editing.issuer;
  const title = editing ? `Settings of ${editing.name}` : 'New identity provider';
  return (
    <section className="panel" aria-label={title}>
      <h2 className="panel-title">{title}</h2>
      <FormError message={form.formError} />
      <Form className="form adm-form" {...form.formProps}>
        <TextField
          label="Name"
          name="name"
          isRequired
          maxLength={100}
          description='Shown on the sign-in button: "Sign in with …".'
          value={values.name}
          onChange={(v) => form.set('name', v)}
        />
        <TextField
          label="Issuer"
          name="issuer"
          type="url"
          isRequired
          description="The provider's issuer URL (its /.well-known/openid-configuration is read)."
          value={values.issuer}
          onChange={(v) => form.set('issuer', v)}
        />
        <TextField
          label="Client ID"
          name="clientId"
          isRequired
          maxLength={255}
          value={values.clientId}
          onChange={(v) => form.set('clientId', v)}
        />
        <TextField
          label={
            !editing
              ? 'Client secret'
              : issuerChanged
                ? 'Client secret for the new issuer'
                : 'Client secret: set — replace'
          }
          name="clientSecret"
          type="password"
          autoComplete="new-password"
          isRequired={!editing || issuerChanged}
          maxLength={1024}
          placeholder={editing && !issuerChanged ? 'set — type a new one to replace it' : undefined}
          description={
            !editing
              ? 'Never shown again: it is stored sealed.'
              : issuerChanged
                ? 'The issuer changes: type the client secret again (it is not sent to another issuer unasked).'
                : 'A secret is set and never shown. Leave this empty to keep it.'
          }
          value={values.clientSecret}
          onChange={(v) => form.set('clientSecret', v)}
        />
        <fieldset className="adm-fieldset">
          <legend className="field-label">Accounts</legend>
          <label className="checkbox-field">
            <input
              type="radio"
              name="justInTime"
              checked={!values.justInTime}
              onChange={() => form.set('justInTime', false)}
            />
            Pre-provisioned: only people who already have an account here
          </label>
          <label className="checkbox-field">
            <input
              type="radio"
              name="justInTime"
              checked={values.justInTime}
              onChange={() => form.set('justInTime', true)}
            />
            Just in time: a person new here gets an account at their first sign-in
          </label>
        </fieldset>
        <SelectField
          label="Default role of a new account"
          name="defaultRole"
          value={values.defaultRole}
          onChange={(v) => form.set('defaultRole', v as GrantableRole)}
          options={ROLES.map((r) => ({ value: r.role, label: r.label }))}
          error={fieldErrors.defaultRole}
        />
        <TextField
          label="Extra scopes"
          name="scopes"
          description="Asked beside openid, email and profile, separated by spaces (e.g. groups)."
          value={values.scopes}
          onChange={(v) => form.set('scopes', v)}
        />
        <TextField
          label="Name claim"
          name="nameClaim"
          isRequired
          value={values.nameClaim}
          onChange={(v) => form.set('nameClaim', v)}
        />
        <TextField
          label="Groups claim"
          name="groupsClaim"
          isRequired
          value={values.groupsClaim}
          onChange={(v) => form.set('groupsClaim', v)}
        />
        <RoleRulesEditor
          rules={values.roleRules}
          onChange={(r) => form.set('roleRules', r)}
          error={fieldErrors.roleRules}
        />
        <ProjectRulesEditor
          rules={values.projectRules}
          onChange={(r) => form.set('projectRules', r)}
          projects={projects}
          error={fieldErrors.projectRules}
        />
        <label className="checkbox-field">
          <input
            type="checkbox"
            checked={values.enabled}
            onChange={(e) => form.set('enabled', e.target.checked)}
          />
          Enabled: shown on the sign-in page and usable
        </label>
        <div className="adm-form-actions">
          <Button type="submit" variant="primary" isPending={form.submitting}>
            {editing ? 'Save provider' : 'Add provider'}
          </Button>
          {onCancel && <Button onPress={onCancel}>Cancel</Button>}
        </div>
      </Form>
    </section>
  );
}
