import { useId, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Form } from 'react-aria-components';
import { queryKeys } from '../../api/keys';
import { Button } from '../../components/Button';
import { Dialog } from '../../components/Dialog';
import { FormError } from '../../components/FormError';
import { SelectField } from '../../components/SelectField';
import { TextField } from '../../components/TextField';
import { formatCountOf } from '../../lib/format';
import { shownFieldErrorsOf, useForm } from '../../lib/useForm';
import { issueIdFromUrl, projectIntegrationsQuery } from '../runs';
import { linkDefectToGroup, type DefectLink, type FailureGroup } from './api';
import { failWith, linkTextOr } from './words';

interface LinkValues {
  integrationId: string;
  url: string;
  text: string;
  issueId: string;
}
const EMPTY: LinkValues = { integrationId: '', url: '', text: '', issueId: '' };

const BAD_URL = 'The address must be an http(s) address, like https://tracker.example.com/issues/42.';
/** An address the page refuses before sending (the browser's own check lets `ftp:` and `javascript:` pass). */
class BadUrl extends Error {}
const errorsOf = shownFieldErrorsOf(['url', 'text', 'integrationId', 'meta']);

const isHttpUrl = (s: string) => {
  try {
    return ['http:', 'https:'].includes(new URL(s).protocol);
  } catch {
    return false;
  }
};

/** The link as the API takes it (D24): a tracker's link names its issue, so the service comments back on it. */
function toLink(v: LinkValues, commentsBack: boolean): DefectLink {
  const url = v.url.trim();
  const text = linkTextOr(v.text, url);
  if (!v.integrationId) return { url, text };
  const issueId = v.issueId.trim() || issueIdFromUrl(url);
  return {
    integrationId: v.integrationId,
    url,
    text,
    ...(commentsBack && issueId ? { meta: { id: issueId } } : {}),
  };
}

/**
 * "Link this defect to all": the recorder's issue link (tracker, address, text, issue number) for every case of a
 * run's failure group in one request. A refusal is said beside its field and keeps what was typed.
 */
export function LinkDefectDialog({
  code,
  runId,
  group,
  onClose,
  onLinked,
}: {
  code: string;
  runId: number;
  group: FailureGroup | undefined;
  onClose: () => void;
  onLinked: (message: string) => void;
}) {
  const id = useId();
  const queryClient = useQueryClient();
  const integrations = useQuery({ ...projectIntegrationsQuery(code), enabled: group !== undefined });
  const trackers = integrations.data ?? [];
  const [openedOn, setOpenedOn] = useState<string>();
  const form = useForm<LinkValues>({
    initial: EMPTY,
    errors: (e) => (e instanceof BadUrl ? { fields: { url: BAD_URL } } : errorsOf(e)),
    submit: async (v) => {
      if (!isHttpUrl(v.url.trim())) throw new BadUrl();
      const answer = await link.mutateAsync(toLink(v, commentsBack));
      const skipped = answer.skipped.length
        ? ` ${formatCountOf(answer.skipped.length, 'case')} had it already.`
        : '';
      onLinked(
        `“${linkTextOr(v.text, v.url)}” linked to ${formatCountOf(answer.linked.length, 'case')}.${skipped}`,
      );
      onClose();
    },
  });
  // Each opening starts empty: what was typed for another group is not sent to this one.
  if (group && openedOn !== group.signature) {
    setOpenedOn(group.signature);
    form.reset();
  }
  if (!group && openedOn !== undefined) setOpenedOn(undefined);
  const v = form.values;
  // A custom integration has no API to comment on: its links are links.
  const commentsBack = trackers.some((t) => t.integrationId === v.integrationId && t.type !== 'custom');
  const derived = issueIdFromUrl(v.url);
  const link = useMutation({
    mutationFn: (body: DefectLink) => linkDefectToGroup(code, runId, group!.signature, body),
    onSuccess: async () => {
      await Promise.all([
        // The cases' results now carry the link; the report's failures too.
        queryClient.invalidateQueries({ queryKey: queryKeys.run(code, runId) }),
        queryClient.invalidateQueries({ queryKey: queryKeys.reports(code), refetchType: 'none' }),
      ]);
    },
  });
  return (
    <Dialog
      title="Link this defect to all"
      isOpen={group !== undefined}
      onOpenChange={(open) => {
        if (!open) onClose();
      }}
      isDismissable={!link.isPending}
    >
      {group && (
        <Form {...form.formProps} className="form">
          <p className="triage-dialog-group">
            {failWith(group.count)} <code className="triage-label">{group.label}</code>
          </p>
          <FormError message={form.formError} />
          {trackers.length > 0 && (
            <SelectField
              label="Tracker"
              value={v.integrationId}
              onChange={(value) => form.set('integrationId', value)}
              placeholder="None (a plain link)"
              options={trackers.map((t) => ({ value: t.integrationId, label: t.name }))}
              error={form.fieldErrors.integrationId}
            />
          )}
          <TextField
            label="Address of the issue"
            name="url"
            type="url"
            isRequired
            autoFocus
            placeholder="https://tracker.example.com/issues/42"
            value={v.url}
            onChange={(value) => form.set('url', value)}
          />
          <TextField
            label="Link text"
            name="text"
            placeholder="Checkout fails"
            description="The address when left empty."
            value={v.text}
            onChange={(value) => form.set('text', value)}
          />
          {commentsBack && (
            <div className="field">
              <label className="field-label" htmlFor={`${id}-issue`}>
                Issue number or key
              </label>
              <input
                id={`${id}-issue`}
                className="field-input"
                value={v.issueId}
                aria-describedby={`${id}-issue-hint${form.fieldErrors.meta ? ` ${id}-issue-error` : ''}`}
                aria-invalid={form.fieldErrors.meta ? true : undefined}
                onChange={(e) => form.set('issueId', e.target.value)}
                placeholder={derived || '42 or SHOP-7'}
              />
              {form.fieldErrors.meta && (
                <span id={`${id}-issue-error`} className="field-error">
                  {form.fieldErrors.meta}
                </span>
              )}
              <p id={`${id}-issue-hint`} className="field-hint muted">
                The tracker gets a comment pointing back to each result
                {derived && !v.issueId ? ` (${derived}, read from the address)` : ''}.
              </p>
            </div>
          )}
          <div className="dialog-actions">
            <Button isDisabled={link.isPending} onPress={onClose}>
              Cancel
            </Button>
            <Button type="submit" variant="primary" isPending={link.isPending}>
              Link to {formatCountOf(group.count, 'case')}
            </Button>
          </div>
        </Form>
      )}
    </Dialog>
  );
}
