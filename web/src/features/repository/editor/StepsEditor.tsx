import { useId, useState } from 'react';
import { Button } from '../../../components/Button';
import type { SharedStep } from '../api';
import { newKey, type StepDraft } from '../draft';
import { RichTextField } from '../../../components/rich-text/RichText';

/** Not text/plain: a dragged step is never pasted into a field as text. */
const STEP_MIME = 'application/x-casebook-step';

const move = <T,>(list: T[], from: number, to: number): T[] => {
  const out = [...list];
  const [item] = out.splice(from, 1);
  out.splice(to, 0, item!);
  return out;
};

/**
 * Own and shared steps: add, remove, and reorder by dragging the handle or, from the keyboard, with the
 * Move up / Move down buttons; each move is announced.
 */
export function StepsEditor({
  steps,
  onChange,
  sharedSteps,
  errorAt,
}: {
  steps: StepDraft[];
  onChange: (steps: StepDraft[]) => void;
  sharedSteps: SharedStep[];
  errorAt: (path: string) => string | undefined;
}) {
  const [dragged, setDragged] = useState<number | null>(null);
  const [over, setOver] = useState<number | null>(null);
  const [announce, setAnnounce] = useState('');
  const [shared, setShared] = useState('');
  const pickId = useId();

  const moveTo = (from: number, to: number) => {
    if (to < 0 || to >= steps.length || from === to) return;
    onChange(move(steps, from, to));
    setAnnounce(`Step ${from + 1} moved to position ${to + 1} of ${steps.length}.`);
  };
  const update = (i: number, patch: Partial<StepDraft>) =>
    onChange(steps.map((s, j) => (j === i ? { ...s, ...patch } : s)));

  return (
    <div>
      <p className="visually-hidden" role="status" aria-live="polite">
        {announce}
      </p>
      {steps.length === 0 && <p className="muted">No steps yet: add one below.</p>}
      <ol className="steps steps-edit">
        {steps.map((s, i) => (
          <li
            key={s.key}
            className={`step step-edit${over === i ? ' step-drop' : ''}${dragged === i ? ' step-dragging' : ''}`}
            // Capture phase: a step dropped over a rich-text field reorders; it is not text for the field.
            onDragOverCapture={(e) => {
              if (dragged === null) return;
              e.preventDefault();
              e.stopPropagation();
              setOver(i);
            }}
            onDragLeave={() => setOver((o) => (o === i ? null : o))}
            onDropCapture={(e) => {
              if (dragged === null) return;
              e.preventDefault();
              e.stopPropagation();
              if (dragged !== null) moveTo(dragged, i);
              setDragged(null);
              setOver(null);
            }}
          >
            <div className="step-toolbar">
              <span
                className="drag-handle"
                draggable
                aria-hidden="true"
                title="Drag to reorder"
                onDragStart={(e) => {
                  e.dataTransfer.effectAllowed = 'move';
                  e.dataTransfer.setData(STEP_MIME, String(i));
                  setDragged(i);
                }}
                onDragEnd={() => {
                  setDragged(null);
                  setOver(null);
                }}
              >
                ⠿
              </span>
              <span className="step-number">Step {i + 1}</span>
              {s.sharedStepId !== undefined && <span className="badge">Shared step</span>}
              <span className="step-actions">
                <Button
                  variant="ghost"
                  aria-label={`Move step ${i + 1} up`}
                  isDisabled={i === 0}
                  onPress={() => moveTo(i, i - 1)}
                >
                  ↑
                </Button>
                <Button
                  variant="ghost"
                  aria-label={`Move step ${i + 1} down`}
                  isDisabled={i === steps.length - 1}
                  onPress={() => moveTo(i, i + 1)}
                >
                  ↓
                </Button>
                <Button
                  variant="ghost"
                  aria-label={`Remove step ${i + 1}`}
                  onPress={() => {
                    onChange(steps.filter((_, j) => j !== i));
                    setAnnounce(`Step ${i + 1} removed.`);
                  }}
                >
                  ✕
                </Button>
              </span>
            </div>
            {s.sharedStepId !== undefined ? (
              <div className="step-shared">
                <p className="step-shared-title">{s.title}</p>
                <ol className="substeps">
                  {(s.subSteps ?? []).map((sub) => (
                    <li key={sub.id} className="step-body">
                      <div className="prose" dangerouslySetInnerHTML={{ __html: sub.description }} />
                    </li>
                  ))}
                </ol>
                {errorAt(`/steps/${i}`) && <p className="field-error">{errorAt(`/steps/${i}`)}</p>}
              </div>
            ) : (
              <div className="step-fields">
                <RichTextField
                  label={`Step ${i + 1} description`}
                  value={s.description}
                  onChange={(description) => update(i, { description })}
                  error={errorAt(`/steps/${i}/description`) ?? errorAt(`/steps/${i}`)}
                />
                <RichTextField
                  label={`Step ${i + 1} expected result`}
                  value={s.expected}
                  onChange={(expected) => update(i, { expected })}
                  error={errorAt(`/steps/${i}/expected`)}
                />
              </div>
            )}
          </li>
        ))}
      </ol>
      <div className="step-add">
        <Button
          onPress={() => {
            onChange([...steps, { key: newKey(), description: '', expected: '' }]);
            setAnnounce(`Step ${steps.length + 1} added.`);
          }}
        >
          Add step
        </Button>
        <div className="inline-field">
          <label className="field-label" htmlFor={pickId}>
            Shared step
          </label>
          <select
            id={pickId}
            className="field-input"
            value={shared}
            onChange={(e) => setShared(e.target.value)}
          >
            <option value="">
              {sharedSteps.length ? 'Choose a shared step…' : 'No shared steps in this project'}
            </option>
            {sharedSteps.map((x) => (
              <option key={x.id} value={x.id}>
                {x.title}
              </option>
            ))}
          </select>
        </div>
        <Button
          isDisabled={!shared}
          onPress={() => {
            const x = sharedSteps.find((y) => String(y.id) === shared);
            if (!x) return;
            onChange([
              ...steps,
              {
                key: newKey(),
                sharedStepId: x.id,
                title: x.title,
                subSteps: x.subSteps.map((sub) => ({
                  id: sub.id,
                  description: sub.description,
                  expected: sub.expected,
                })),
                description: '',
                expected: '',
              },
            ]);
            setShared('');
            setAnnounce(`Shared step ${x.title} added as step ${steps.length + 1}.`);
          }}
        >
          Add shared step
        </Button>
      </div>
    </div>
  );
}
