import { useState } from 'react';
import { Button } from '../../../components/Button';
import { Dialog } from '../../../components/Dialog';
import { FolderPathOption } from '../../../components/FolderPath';
import { pathOf, subtreeIds, type FolderIndex, type FolderNode, type Placement } from '../folder-tree';

/** The keyboard way to move a folder anywhere: pick the new parent, then the place among its folders. */
export function MoveFolderDialog({
  index,
  folder,
  onMove,
  onCancel,
}: {
  index: FolderIndex;
  folder: FolderNode;
  onMove: (to: Placement) => void;
  onCancel: () => void;
}) {
  const inside = new Set(subtreeIds(folder));
  const [parentId, setParentId] = useState(folder.parentId);
  const siblings = (parentId ? (index.byId.get(parentId)?.children ?? []) : index.roots).filter(
    (s) => s.id !== folder.id,
  );
  const [pos, setPos] = useState(siblings.length);
  return (
    <Dialog title={`Move “${folder.title}”`} isOpen onOpenChange={(open) => !open && onCancel()}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          onMove({ parentId, pos: Math.min(pos, siblings.length) });
        }}
      >
        <label className="field">
          <span className="field-label">Into</span>
          <select
            className="field-input"
            value={parentId}
            onChange={(e) => {
              const p = Number(e.target.value);
              setParentId(p);
              setPos((p ? (index.byId.get(p)?.children.length ?? 0) : index.roots.length) + 1);
            }}
          >
            <option value={0}>The top level</option>
            {index.flat
              .filter((f) => !inside.has(f.id))
              .map((f) => (
                <FolderPathOption key={f.id} value={f.id} path={pathOf(index, f.id).map((p) => p.title)} />
              ))}
          </select>
        </label>
        <label className="field">
          <span className="field-label">Place</span>
          <select
            className="field-input"
            value={Math.min(pos, siblings.length)}
            onChange={(e) => setPos(Number(e.target.value))}
          >
            {siblings.map((s, i) => (
              <option key={s.id} value={i}>
                Before “{s.title}”
              </option>
            ))}
            <option value={siblings.length}>{siblings.length ? 'Last' : 'Only folder there'}</option>
          </select>
        </label>
        <div className="dialog-actions">
          <Button slot="close">Cancel</Button>
          <Button type="submit" variant="primary">
            Move
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
