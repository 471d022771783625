import { useEffect, useId, useRef, useState } from 'react';
import { Button as AriaButton, isTextDropItem, Pressable, useDrag, useDrop } from 'react-aria-components';
import { Button } from '../../../components/Button';
import type { SharedStep } from '../api';
import { newKey, type StepDraft } from '../draft';
import { RichTextField } from '../../../components/rich-text/RichText';
import { SafeHtml } from '../../../components/rich-text/SafeHtml';

/**
 * What a dragged step carries: its key, under this type only. No text/plain or text/html, so neither a
 * rich-text field nor the browser has any text to insert where the step is dropped.
 */
const STEP_TYPE = 'application/x-casebook-step';

const move = <T,>(list: T[], from: number, to: number): T[] => {
  const out = [...list];
  const [item] = out.splice(from, 1);
  out.splice(to, 0, item!);
  return out;
};

/**
 * Own and shared steps: add, remove, and reorder — by dragging a step's handle onto another step (React Aria's
 * useDrag/useDrop: mouse, touch, and from the keyboard Enter on the handle, Tab to a step, Enter to drop,
 * Escape to cancel, announced), or with the Move up / Move down buttons. Each move is announced.
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
  /** The key of the step being dragged, from the moment the drag starts (React Aria's own flag waits a frame). */
  const [dragging, setDragging] = useState<string | null>(null);
  const [announce, setAnnounce] = useState('');
  const [shared, setShared] = useState('');
  const pickId = useId();
  const handles = useRef(new Map<string, HTMLElement>());
  /** The step whose handle takes focus once a drop has moved it (and is scrolled to where it went). */
  const focusAfterDrop = useRef<string | null>(null);
  useEffect(() => {
    const key = focusAfterDrop.current;
    focusAfterDrop.current = null;
    if (key !== null) handles.current.get(key)?.focus();
  });

  const moveTo = (from: number, to: number) => {
    if (from < 0 || to < 0 || to >= steps.length || from === to) return false;
    onChange(move(steps, from, to));
    setAnnounce(`Step ${from + 1} moved to position ${to + 1} of ${steps.length}.`);
    return true;
  };
  /** A dropped step takes the place of the step it was dropped on; focus goes to its handle. */
  const drop = (key: string, to: number) => {
    const from = steps.findIndex((s) => s.key === key);
    if (moveTo(from, to)) focusAfterDrop.current = key;
  };
  const update = (i: number, patch: Partial<StepDraft>) =>
    onChange(steps.map((s, j) => (j === i ? { ...s, ...patch } : s)));
  const draggedAt = steps.findIndex((s) => s.key === dragging);

  return (
    <div>
      <p className="visually-hidden" role="status" aria-live="polite">
        {announce}
      </p>
      {steps.length === 0 && <p className="muted">No steps yet: add one below.</p>}
      <ol className={`steps steps-edit${dragging !== null ? ' steps-dragging' : ''}`}>
        {steps.map((s, i) => (
          <StepItem
            key={s.key}
            step={s}
            index={i}
            count={steps.length}
            draggedAt={draggedAt}
            handleRef={(el) => {
              if (el) handles.current.set(s.key, el);
              else handles.current.delete(s.key);
            }}
            onDragStart={() => setDragging(s.key)}
            onDragEnd={() => setDragging(null)}
            onDrop={(key) => drop(key, i)}
            onMove={(to) => moveTo(i, to)}
            onRemove={() => {
              onChange(steps.filter((_, j) => j !== i));
              setAnnounce(`Step ${i + 1} removed.`);
            }}
            onUpdate={(patch) => update(i, patch)}
            errorAt={errorAt}
          />
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

function StepItem({
  step: s,
  index: i,
  count,
  draggedAt,
  handleRef,
  onDragStart,
  onDragEnd,
  onDrop,
  onMove,
  onRemove,
  onUpdate,
  errorAt,
}: {
  step: StepDraft;
  index: number;
  count: number;
  /** Where the step being dragged is now (-1: none). */
  draggedAt: number;
  handleRef: (el: HTMLElement | null) => void;
  onDragStart: () => void;
  onDragEnd: () => void;
  onDrop: (key: string) => void;
  onMove: (to: number) => void;
  onRemove: () => void;
  onUpdate: (patch: Partial<StepDraft>) => void;
  errorAt: (path: string) => string | undefined;
}) {
  // The handle is dragged natively by mouse or touch (dragProps) and is a button that starts React Aria's
  // keyboard and screen-reader drag when pressed (dragButtonProps: Enter or Space, a screen reader's click).
  const { dragProps, dragButtonProps, isDragging } = useDrag({
    getItems: () => [{ [STEP_TYPE]: s.key }],
    getAllowedDropOperations: () => ['move'],
    hasDragButton: true,
    onDragStart,
    onDragEnd,
  });
  // The whole step takes a pointer drop. From the keyboard the drop target is a button in it, there only while
  // a step is dragged and reached only by the drag (React Aria focuses it on Tab), named by the position the
  // dragged step would take.
  const dropRef = useRef<HTMLButtonElement>(null);
  const { dropProps, dropButtonProps, isDropTarget } = useDrop({
    ref: dropRef,
    hasDropButton: true,
    // A drop target only while a step is dragged: other drags (text within a rich-text field) are left alone,
    // and the targets register at each drag's start in the page's order, the order Tab visits them in.
    isDisabled: draggedAt < 0,
    // Only a step, and not onto itself.
    getDropOperation: (types) => (types.has(STEP_TYPE) && draggedAt !== i ? 'move' : 'cancel'),
    onDrop: async (e) => {
      const item = e.items.filter(isTextDropItem).find((x) => x.types.has(STEP_TYPE));
      if (item) onDrop(await item.getText(STEP_TYPE));
    },
  });
  const drop = isDropTarget ? ` step-drop${draggedAt >= 0 && draggedAt < i ? ' step-drop-after' : ''}` : '';

  return (
    <li {...dropProps} className={`step step-edit${drop}${isDragging ? ' step-dragging' : ''}`}>
      {draggedAt >= 0 && draggedAt !== i && (
        <AriaButton
          {...dropButtonProps}
          ref={dropRef}
          excludeFromTabOrder
          className="visually-hidden"
          aria-label={`Move to position ${i + 1} of ${count}`}
        />
      )}
      <div className="step-toolbar">
        <Pressable onPress={dragButtonProps.onPress}>
          <span
            {...dragProps}
            ref={handleRef}
            role="button"
            tabIndex={0}
            className="drag-handle"
            aria-label={`Drag step ${i + 1}`}
            aria-describedby={dragButtonProps['aria-describedby']}
            title="Drag to reorder"
          >
            <span aria-hidden="true">⠿</span>
          </span>
        </Pressable>
        <span className="step-number">Step {i + 1}</span>
        {s.sharedStepId !== undefined && <span className="badge">Shared step</span>}
        <span className="step-actions">
          <Button
            variant="ghost"
            aria-label={`Move step ${i + 1} up`}
            isDisabled={i === 0}
            onPress={() => onMove(i - 1)}
          >
            ↑
          </Button>
          <Button
            variant="ghost"
            aria-label={`Move step ${i + 1} down`}
            isDisabled={i === count - 1}
            onPress={() => onMove(i + 1)}
          >
            ↓
          </Button>
          <Button variant="ghost" aria-label={`Remove step ${i + 1}`} onPress={onRemove}>
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
                <SafeHtml html={sub.description} />
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
            onChange={(description) => onUpdate({ description })}
            error={errorAt(`/steps/${i}/description`) ?? errorAt(`/steps/${i}`)}
          />
          <RichTextField
            label={`Step ${i + 1} expected result`}
            value={s.expected}
            onChange={(expected) => onUpdate({ expected })}
            error={errorAt(`/steps/${i}/expected`)}
          />
        </div>
      )}
    </li>
  );
}
