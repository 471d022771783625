import { useState } from 'react';
import { Button } from '../../../components/Button';
import type { RunTestCase } from '../api';
import { AddCasesDialog } from './AddCasesDialog';
import { AssignDialog, type AssignTarget } from './AssignDialog';
import { RemoveCasesDialog } from './RemoveCasesDialog';

/** Assigning one case from its row. */
export const assignOne = (code: string, c: RunTestCase): AssignTarget => ({
  tcaseIds: [c.id],
  label: `${code}-${c.seq}`,
  current: c.assignee?.id ?? null,
});

/**
 * What a tester does to the run's cases besides recording results: assign them (the selected ones here, one from
 * its row through `assigning`), and for an open static_struct run (the type the API lets change, D17) add cases
 * and remove the selected ones. What happened is said in a status line.
 */
export function CaseActions({
  code,
  runId,
  runType,
  cases,
  checked,
  onClearChecked,
  assigning,
  onAssigning,
  meId,
}: {
  code: string;
  runId: number;
  runType: string;
  cases: RunTestCase[];
  checked: ReadonlySet<string>;
  onClearChecked: () => void;
  assigning: AssignTarget | undefined;
  onAssigning: (target: AssignTarget | undefined) => void;
  meId: number | undefined;
}) {
  const [adding, setAdding] = useState(false);
  const [removing, setRemoving] = useState<RunTestCase[]>();
  const [message, setMessage] = useState('');
  const changeable = runType === 'static_struct';
  const selected = cases.filter((c) => checked.has(c.id));
  const n = selected.length;
  return (
    <>
      <div className="run-case-actions" role="group" aria-label="Test case actions">
        {changeable && <Button onPress={() => setAdding(true)}>Add cases</Button>}
        {n > 0 && (
          <>
            <Button
              onPress={() =>
                onAssigning({
                  tcaseIds: selected.map((c) => c.id),
                  label: n === 1 ? `${code}-${selected[0].seq}` : `${n} cases`,
                  fromSelection: true,
                })
              }
            >
              Assign selected
            </Button>
            {changeable && (
              <Button variant="danger" onPress={() => setRemoving(selected)}>
                Remove selected
              </Button>
            )}
          </>
        )}
        <p className="run-case-message muted" role="status">
          {message}
        </p>
      </div>
      <AssignDialog
        code={code}
        runId={runId}
        target={assigning}
        meId={meId}
        onClose={() => onAssigning(undefined)}
        onAssigned={(m) => {
          setMessage(m);
          if (assigning?.fromSelection) onClearChecked();
        }}
      />
      <RemoveCasesDialog
        code={code}
        runId={runId}
        cases={removing}
        onClose={() => setRemoving(undefined)}
        onRemoved={(m) => {
          setMessage(m);
          onClearChecked();
        }}
      />
      <AddCasesDialog
        code={code}
        runId={runId}
        isOpen={adding}
        inRun={new Set(cases.map((c) => c.id))}
        onClose={() => setAdding(false)}
        onAdded={setMessage}
      />
    </>
  );
}
