import { useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { folderCountsQuery, projectFoldersQuery } from '../../../api/queries';
import { readExpanded } from '../../../lib/folder-expansion';
import { formatCount, formatCountOf } from '../../../lib/format';
import {
  checkStates,
  chosenCases,
  pickerTree,
  toggleFolder,
  visibleRows,
  type CheckState,
} from './folder-picker';

const MARK: Record<CheckState, string> = { checked: '☑', inherited: '☑', mixed: '▣', unchecked: '☐' };

/**
 * The folders of a run's query plan as a tree with case counts: checking a folder takes its subtree,
 * a folder with something chosen under it is shown mixed (aria-checked="mixed"), and the cases of the chosen
 * folders are counted as they change. The keyboard works as in the repository's tree: ↑ ↓ Home End move, → opens
 * or goes to the first subfolder, ← closes or goes to the parent, Space or Enter checks.
 */
export function FolderPicker({
  code,
  label,
  chosen,
  onChange,
}: {
  code: string;
  label: string;
  chosen: number[];
  onChange: (ids: number[]) => void;
}) {
  const folders = useQuery(projectFoldersQuery(code));
  const counts = useQuery(folderCountsQuery(code));
  const tree = useMemo(() => pickerTree(folders.data ?? []), [folders.data]);
  // The tree opens as the repository's was left in this browser, with every chosen folder in view.
  const [expanded, setExpanded] = useState<Set<number>>(() => {
    const open = readExpanded(code);
    for (const id of chosen) {
      for (let f = tree.byId.get(id); f?.parentId; f = tree.byId.get(f.parentId)) open.add(f.parentId);
    }
    return open;
  });
  const rows = useMemo(() => visibleRows(tree, expanded), [tree, expanded]);
  const states = useMemo(() => checkStates(tree, chosen), [tree, chosen]);
  const total = chosenCases(tree, chosen, counts.data);
  const [focused, setFocused] = useState<number>();
  const list = useRef<HTMLUListElement>(null);
  // The row that takes the Tab stop: the one last focused while it is still shown, else the first.
  const current = rows.some((r) => r.folder.id === focused) ? focused : rows[0]?.folder.id;

  const focusRow = (id: number | undefined) => {
    if (id === undefined) return;
    setFocused(id);
    const row = () => list.current?.querySelector<HTMLElement>(`[data-folder="${id}"]`);
    // At once, so the next key reaches the row it moved to; a row not drawn yet gets it once React has drawn it.
    const now = row();
    if (now) now.focus();
    else requestAnimationFrame(() => row()?.focus());
  };
  const setOpen = (id: number, open: boolean) =>
    setExpanded((x) => {
      const next = new Set(x);
      if (open) next.add(id);
      else next.delete(id);
      return next;
    });

  const onKeyDown = (e: KeyboardEvent, i: number) => {
    const row = rows[i];
    const id = row.folder.id;
    switch (e.key) {
      case 'ArrowDown':
        focusRow(rows[Math.min(i + 1, rows.length - 1)].folder.id);
        break;
      case 'ArrowUp':
        focusRow(rows[Math.max(i - 1, 0)].folder.id);
        break;
      case 'Home':
        focusRow(rows[0].folder.id);
        break;
      case 'End':
        focusRow(rows[rows.length - 1].folder.id);
        break;
      case 'ArrowRight':
        if (row.hasChildren && !row.expanded) setOpen(id, true);
        else if (row.expanded) focusRow(rows[i + 1]?.folder.id);
        break;
      case 'ArrowLeft':
        if (row.expanded) setOpen(id, false);
        else focusRow(row.parentId);
        break;
      case ' ':
      case 'Enter':
        onChange(toggleFolder(tree, chosen, id));
        break;
      default:
        return;
    }
    e.preventDefault();
  };

  if (folders.isPending) return <p className="muted">Loading the folders…</p>;
  if (folders.isError)
    return <p className="field-error">The folders could not be loaded: {folders.error.message}</p>;
  if (rows.length === 0) return <p className="muted">No folders yet.</p>;
  return (
    <>
      <ul
        ref={list}
        className="plan-scroll folder-picker"
        role="tree"
        aria-label={label}
        aria-multiselectable="true"
      >
        {rows.map((row, i) => {
          const { folder } = row;
          const state = states.get(folder.id) ?? 'unchecked';
          const count = counts.data?.get(folder.id);
          return (
            <li
              key={folder.id}
              role="treeitem"
              data-folder={folder.id}
              className={`folder-pick is-${state}`}
              aria-level={row.level}
              aria-posinset={row.posInSet}
              aria-setsize={row.setSize}
              aria-expanded={row.hasChildren ? row.expanded : undefined}
              aria-checked={state === 'mixed' ? 'mixed' : state !== 'unchecked'}
              aria-disabled={state === 'inherited' || undefined}
              tabIndex={folder.id === current ? 0 : -1}
              style={{ paddingLeft: (row.level - 1) * 18 }}
              onFocus={() => setFocused(folder.id)}
              onKeyDown={(e) => onKeyDown(e, i)}
              onClick={() => {
                setFocused(folder.id);
                onChange(toggleFolder(tree, chosen, folder.id));
              }}
            >
              <span
                className="folder-pick-chevron"
                aria-hidden="true"
                onClick={(e) => {
                  // The chevron opens and closes; the rest of the row checks.
                  e.stopPropagation();
                  if (row.hasChildren) setOpen(folder.id, !row.expanded);
                }}
              >
                {row.hasChildren ? (row.expanded ? '▾' : '▸') : ''}
              </span>
              <span className="folder-pick-mark" aria-hidden="true">
                {MARK[state]}
              </span>
              <span className="folder-pick-title">{folder.title}</span>
              {count && (
                <span className="folder-count" title={formatCountOf(count.subtree, 'test case')}>
                  <span aria-hidden="true">{formatCount(count.subtree)}</span>
                  <span className="visually-hidden">, {formatCountOf(count.subtree, 'test case')}</span>
                </span>
              )}
              {state === 'inherited' && <span className="visually-hidden">, included with its parent</span>}
            </li>
          );
        })}
      </ul>
      <p className="plan-picked" aria-live="polite">
        {chosen.length === 0
          ? 'No folder chosen: every folder’s cases count.'
          : total === undefined
            ? 'Counting the cases of the chosen folders…'
            : `${formatCountOf(total, 'case')} in the chosen ${chosen.length === 1 ? 'folder' : 'folders'}`}
      </p>
    </>
  );
}
