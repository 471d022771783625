import { useId, useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { isApiError } from '../../../api/client';
import { Button } from '../../../components/Button';
import { TextField } from '../../../components/TextField';
import { EVENTS, previewPayload, words, type EventType } from './api';

/**
 * The payload template, with a preview: the body a receiver would get for a sample event of the chosen type,
 * rendered by the service (the same code as a delivery), or why the template is refused.
 */
export function PayloadField({
  value,
  onChange,
  eventTypes,
}: {
  value: string;
  onChange: (v: string) => void;
  eventTypes: EventType[];
}) {
  const selectId = useId();
  const [sample, setSample] = useState<EventType>();
  const eventType = sample ?? eventTypes[0] ?? 'run_created';
  const preview = useMutation({
    mutationFn: () => previewPayload(value.trim() === '' ? { eventType } : { payload: value, eventType }),
  });
  const refusal =
    preview.isError && isApiError(preview.error)
      ? (preview.error.body.details?.map((d) => d.message).join(' ') ?? words(preview.error))
      : preview.isError
        ? words(preview.error)
        : undefined;
  return (
    <div className="adm-payload">
      <TextField
        label="Payload template (optional)"
        name="payload"
        multiline
        className="adm-mono"
        description='Empty sends the default body. ${path} places a value of the event, e.g. {"text": "${event} in ${project.code}: ${object.title}"}; strings go in without quotes.'
        value={value}
        onChange={(v) => {
          onChange(v);
          preview.reset();
        }}
      />
      <div className="adm-preview-bar">
        <label className="field-label" htmlFor={selectId}>
          Sample event
        </label>
        <select
          id={selectId}
          className="field-input"
          value={eventType}
          onChange={(e) => {
            setSample(e.target.value as EventType);
            preview.reset();
          }}
        >
          {EVENTS.map((e) => (
            <option key={e.type} value={e.type}>
              {e.label}
            </option>
          ))}
        </select>
        <Button onPress={() => preview.mutate()} isPending={preview.isPending}>
          Preview
        </Button>
      </div>
      <div aria-live="polite">
        {refusal && (
          <p className="field-error" role="alert">
            The template is refused: {refusal}
          </p>
        )}
        {preview.data && (
          <>
            <p className="field-description">
              The body for a sample “{EVENTS.find((e) => e.type === preview.data.eventType)?.label}” event
              {preview.data.jsonError ? ':' : ', valid JSON:'}
            </p>
            {preview.data.jsonError && (
              <p className="field-error" role="alert">
                {preview.data.jsonError.charAt(0).toUpperCase() + preview.data.jsonError.slice(1)}. It would
                be sent as it is, labelled JSON.
              </p>
            )}
            <pre className="adm-pre" tabIndex={0} aria-label="Rendered payload">
              {preview.data.body}
            </pre>
          </>
        )}
      </div>
    </div>
  );
}
