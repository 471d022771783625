import { memo, useCallback, useEffect, useId, useMemo, useState } from 'react';
import {
  Collection,
  type Key,
  ListLayout,
  Tree,
  TreeItem,
  TreeItemContent,
  TreeLoadMoreItem,
  useDragAndDrop,
  Virtualizer,
} from 'react-aria-components';
import type { FolderCount } from '../../../api/queries';
import { Button } from '../../../components/Button';
import { useRepositoryWrites } from '../api';
import {
  placementNear,
  siblingsOf,
  subtreeIds,
  type FolderIndex,
  type FolderNode,
  type Placement,
} from '../folder-tree';
import { DeleteFolderDialog } from './DeleteFolderDialog';
import { FolderMenu, giveFocusBack } from './FolderMenu';
import { FolderNameDialog } from './FolderNameDialog';
import { FolderRow, RowsContext, useRowControls, type OpenMenu, type Rows } from './FolderRow';
import { MoveFolderDialog } from './MoveFolderDialog';
import { readExpanded, writeExpanded } from '../../../lib/folder-expansion';

/** One folder row's height (repository.css `.folder-row`), and the line that shows where a dragged folder lands. */
const TREE_LAYOUT = { rowSize: 34, dropIndicatorThickness: 2 };

type Pending =
  | { kind: 'create'; parent?: FolderNode }
  | { kind: 'rename'; folder: FolderNode }
  | { kind: 'move'; folder: FolderNode }
  | { kind: 'delete'; folder: FolderNode };

/**
 * The folder tree (memoised: its React Aria rows are the costliest part of the repository page to render, and the
 * page renders again for every query that settles and every key typed in the search box).
 */
export const FolderTree = memo(function FolderTree({
  code,
  index,
  selected,
  onSelect,
  canEdit,
  counts,
}: {
  code: string;
  index: FolderIndex;
  selected?: number;
  onSelect: (id: number | undefined) => void;
  canEdit: boolean;
  /** Each folder's cases (folderCountsQuery), once they have come. */
  counts?: ReadonlyMap<number, FolderCount>;
}) {
  const writes = useRepositoryWrites(code);
  const [pending, setPending] = useState<Pending>();
  const [expanded, setExpanded] = useState<Set<Key>>(() => {
    // As this browser left the project's tree last time, and the open folder's ancestors, so it is visible.
    const open = new Set<Key>(readExpanded(code));
    let n = selected ? index.byId.get(selected) : undefined;
    while (n?.parentId) {
      open.add(n.parentId);
      n = index.byId.get(n.parentId);
    }
    return open;
  });
  // A block body: whatever writeExpanded answers must never be taken for the effect's clean-up.
  useEffect(() => {
    writeExpanded(code, expanded, (id) => index.byId.has(id));
  }, [code, expanded, index]);
  const [error, setError] = useState<string>();
  // One actions menu for the whole tree, opened beside the row's button that asked for it: a menu trigger in
  // every row cost a cold load a tenth of a second (25 rows of React Aria hooks for menus nobody had opened).
  const [menu, setMenu] = useState<{ id: number; keyboard: boolean; button: Element }>();
  const menuId = useId();
  const [menuOnceReady, setMenuOnceReady] = useState<number>();
  const onMenu = useCallback<OpenMenu>((node, button, pointerType) => {
    setMenuOnceReady(undefined);
    setMenu({ id: node.id, button, keyboard: pointerType === 'keyboard' || pointerType === 'virtual' });
  }, []);
  const [controls, showControls] = useRowControls();
  const toggle = useCallback(
    (id: number) =>
      setExpanded((x) => {
        const next = new Set(x);
        if (!next.delete(id)) next.add(id);
        return next;
      }),
    [],
  );
  const requestMenu = useCallback(
    (id: number) => {
      setMenuOnceReady(id);
      showControls();
    },
    [showControls],
  );
  const rows = useMemo<Rows>(
    () => ({ controls, openMenu: menu?.id, menuId, onMenu, toggle, menuOnceReady, requestMenu, counts }),
    [controls, menu?.id, menuId, onMenu, toggle, menuOnceReady, requestMenu, counts],
  );
  // The menu acts on the folder as it is now (its place among its siblings may have changed meanwhile, another
  // person's change refetched); a folder deleted meanwhile closes it.
  const menuFolder = menu ? index.byId.get(menu.id) : undefined;
  const menuTrigger = useMemo(() => ({ current: menu?.button ?? null }), [menu?.button]);

  const place = (folder: FolderNode, to: Placement) => {
    setError(undefined);
    writes.editFolder.mutate(
      { id: folder.id, parentId: to.parentId, pos: to.pos },
      { onError: (e) => setError(`“${folder.title}” could not be moved: ${e.message}`) },
    );
  };

  const { dragAndDropHooks } = useDragAndDrop({
    getItems: (keys) =>
      [...keys].map((k) => ({ 'text/plain': index.byId.get(Number(k))?.title ?? String(k) })),
    onMove: (e) => {
      if (e.target.type !== 'item') return;
      const target = index.byId.get(Number(e.target.key));
      if (!target) return;
      for (const key of e.keys) {
        const folder = index.byId.get(Number(key));
        if (!folder || folder.id === target.id) continue;
        if (e.target.dropPosition === 'on') {
          setExpanded((x) => new Set(x).add(target.id));
          place(folder, { parentId: target.id, pos: target.children.length });
        } else place(folder, placementNear(index, folder, target, e.target.dropPosition === 'after'));
      }
    },
    isDisabled: !canEdit,
  });

  const moveBy = (folder: FolderNode, step: -1 | 1) => {
    const siblings = siblingsOf(index, folder);
    const at = siblings.findIndex((s) => s.id === folder.id);
    const pos = at + step;
    if (at < 0 || pos < 0 || pos >= siblings.length) return;
    place(folder, { parentId: folder.parentId, pos });
  };

  const renderItem = (node: FolderNode) => {
    return (
      <TreeItem
        id={node.id}
        textValue={node.title}
        className="folder-item"
        hasChildItems={node.children.length > 0}
      >
        <TreeItemContent>
          {({ hasChildItems, isExpanded }) => (
            <FolderRow node={node} canEdit={canEdit} hasChildItems={hasChildItems} isExpanded={isExpanded} />
          )}
        </TreeItemContent>
        {/* A collapsed folder's subtree stays out of the collection: building all 500 folders of a large tree
            cost a third of a second on every cold load. In its place an (unloaded) loader child tells React Aria
            that the folder has children, so its row says it can be expanded (aria-expanded) and → expands it:
            React Aria 1.22 does not pass TreeItem's hasChildItems on to useTreeItem. The browser test of
            expanding a folder fails without it. */}
        {node.children.length > 0 &&
          (expanded.has(node.id) ? (
            <Collection items={node.children}>{renderItem}</Collection>
          ) : (
            <TreeLoadMoreItem />
          ))}
      </TreeItem>
    );
  };

  return (
    <div
      className="folder-pane"
      // A touch reaches the marks themselves (a button that appeared under a finger would miss the tap).
      onPointerEnter={controls ? undefined : (e) => e.pointerType === 'mouse' && showControls()}
      onFocus={controls ? undefined : showControls}
    >
      <div className="folder-pane-header">
        <h2 className="panel-title" id="folders-title">
          Folders
        </h2>
        {canEdit && (
          <Button variant="ghost" onPress={() => setPending({ kind: 'create' })}>
            New folder
          </Button>
        )}
      </div>
      <button
        type="button"
        className={`folder-all${selected === undefined ? ' is-current' : ''}`}
        aria-pressed={selected === undefined}
        onClick={() => onSelect(undefined)}
      >
        All test cases
      </button>
      {error && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
      {index.roots.length === 0 ? (
        <p className="muted folder-empty">No folders yet. Make one to sort your test cases.</p>
      ) : (
        // Only the rows in view are rendered: the pane scrolls on its own, and a project of a thousand top-level
        // folders opens as fast as one of twenty.
        <RowsContext.Provider value={rows}>
          <Virtualizer layout={ListLayout} layoutOptions={TREE_LAYOUT}>
            <Tree
              aria-labelledby="folders-title"
              className="folder-tree"
              items={index.roots}
              selectionMode="single"
              selectionBehavior="replace"
              disallowEmptySelection={false}
              selectedKeys={selected === undefined ? [] : [selected]}
              onSelectionChange={(keys) => {
                if (keys === 'all') return;
                const [first] = [...keys];
                if (first !== undefined) onSelect(Number(first));
              }}
              expandedKeys={expanded}
              onExpandedChange={setExpanded}
              dragAndDropHooks={dragAndDropHooks}
              // The rows are cached by folder: a change of these must build them again.
              dependencies={[expanded, canEdit]}
            >
              {renderItem}
            </Tree>
          </Virtualizer>
        </RowsContext.Provider>
      )}
      {menu && menuFolder && (
        <FolderMenu
          id={menuId}
          index={index}
          folder={menuFolder}
          keyboard={menu.keyboard}
          triggerRef={menuTrigger}
          onClose={() => {
            setMenu(undefined);
            giveFocusBack(menu.button);
          }}
          onAction={(action) => {
            const node = menuFolder;
            if (action === 'sub') setPending({ kind: 'create', parent: node });
            if (action === 'rename') setPending({ kind: 'rename', folder: node });
            if (action === 'up') moveBy(node, -1);
            if (action === 'down') moveBy(node, 1);
            if (action === 'move') setPending({ kind: 'move', folder: node });
            if (action === 'delete') setPending({ kind: 'delete', folder: node });
          }}
        />
      )}
      {pending?.kind === 'create' || pending?.kind === 'rename' ? (
        <FolderNameDialog
          key={pending.kind}
          index={index}
          pending={pending}
          writes={writes}
          onDone={(parentId) => {
            if (parentId) setExpanded((x) => new Set(x).add(parentId));
            setPending(undefined);
          }}
        />
      ) : null}
      {pending?.kind === 'move' && (
        <MoveFolderDialog
          index={index}
          folder={pending.folder}
          onMove={(to) => {
            place(pending.folder, to);
            if (to.parentId) setExpanded((x) => new Set(x).add(to.parentId));
            setPending(undefined);
          }}
          onCancel={() => setPending(undefined)}
        />
      )}
      {pending?.kind === 'delete' && (
        <DeleteFolderDialog
          code={code}
          folder={pending.folder}
          writes={writes}
          onDone={(deleted) => {
            if (deleted && selected !== undefined && subtreeIds(pending.folder).includes(selected))
              onSelect(undefined);
            setPending(undefined);
          }}
        />
      )}
    </div>
  );
});
