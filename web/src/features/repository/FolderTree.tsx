import {
  createContext,
  memo,
  startTransition,
  useCallback,
  useContext,
  useEffect,
  useId,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  type PointerEvent as ReactPointerEvent,
  type ReactNode,
  type RefObject,
} from 'react';
import {
  Button as AriaButton,
  Collection,
  Form,
  type Key,
  ListLayout,
  Menu,
  MenuItem,
  Popover,
  type PressEvent,
  Tree,
  TreeItem,
  TreeItemContent,
  TreeLoadMoreItem,
  useDragAndDrop,
  Virtualizer,
} from 'react-aria-components';
import { useQuery } from '@tanstack/react-query';
import { isApiError } from '../../api/client';
import { Button } from '../../components/Button';
import { Dialog } from '../../components/Dialog';
import { TextField } from '../../components/TextField';
import { siblingsOf, subtreeIds, type FolderIndex, type FolderNode } from './folder-tree';
import { listPageQuery, useRepositoryWrites } from './api';

type Writes = ReturnType<typeof useRepositoryWrites>;

/** One folder row's height (repository.css `.folder-row`), and the line that shows where a dragged folder lands. */
const TREE_LAYOUT = { rowSize: 34, dropIndicatorThickness: 2 };

/** Where a folder goes: under `parentId` (0: the top), at `pos` among its new siblings. */
interface Placement {
  parentId: number;
  pos: number;
}

/** The index a folder takes among `siblings` once it has left its old place (the API's `pos`). */
function placementNear(
  index: FolderIndex,
  moving: FolderNode,
  target: FolderNode,
  after: boolean,
): Placement {
  const others = siblingsOf(index, target).filter((s) => s.id !== moving.id);
  const at = others.findIndex((s) => s.id === target.id);
  return { parentId: target.parentId, pos: at + (after ? 1 : 0) };
}

type Pending =
  | { kind: 'create'; parent?: FolderNode }
  | { kind: 'rename'; folder: FolderNode }
  | { kind: 'move'; folder: FolderNode }
  | { kind: 'delete'; folder: FolderNode };

/** How a row asks for its folder's actions menu: which folder, the button beside it, and how the press came. */
type OpenMenu = (node: FolderNode, button: Element, pointerType: PressEvent['pointerType']) => void;

/**
 * What the rows read at render time rather than from their closures: React Aria caches a collection's rendered
 * items by item, so a row built earlier would keep an old value.
 */
interface Rows {
  /** Whether the rows carry their buttons yet (see `useRowControls`). */
  controls: boolean;
  /** The folder whose actions menu is open, and the menu's id (the button's aria-controls). */
  openMenu?: number;
  menuId: string;
  onMenu: OpenMenu;
  /** A press on a row's marks before its buttons came: expand or collapse, or open its menu once they are there. */
  toggle: (id: number) => void;
  menuOnceReady?: number;
  requestMenu: (id: number) => void;
}
const RowsContext = createContext<Rows>({
  controls: true,
  menuId: '',
  onMenu: () => undefined,
  toggle: () => undefined,
  requestMenu: () => undefined,
});

/**
 * A cold load shows the tree with look-alike marks where each row's three buttons go; the buttons come once the
 * main thread is first idle (at most a second later; 200 ms in Safari, which has no requestIdleCallback), or at once
 * when the mouse or the focus comes into the folder pane. React Aria's buttons cost each row about as much as the
 * row itself, and every row renders twice while mounting; the marks took a twentieth off the repository page's
 * first paint. A tap on a mark still does what the button would (see `FolderRow`). In development React Aria warns
 * once per row that it mounted without its chevron and drag buttons; that is these marks.
 */
function useRowControls(): [boolean, () => void] {
  const [controls, setControls] = useState(false);
  useEffect(() => {
    if (controls) return;
    const show = () => startTransition(() => setControls(true));
    if (typeof (window as Partial<Window>).requestIdleCallback === 'function') {
      const id = window.requestIdleCallback(show, { timeout: 1000 });
      return () => window.cancelIdleCallback(id);
    }
    const id = setTimeout(show, 200);
    return () => clearTimeout(id);
  }, [controls]);
  return [controls, useCallback(() => setControls(true), [])];
}

/** Keeps a press on a mark away from the row (which would select the folder instead). */
const ownPress = (e: ReactPointerEvent) => e.stopPropagation();

/** A button's mark before the row has its buttons: for pointers only, a tap does what the button would. */
function Mark({ className, onTap, children }: { className: string; onTap: () => void; children: ReactNode }) {
  return (
    <span className={className} aria-hidden="true" onPointerDown={ownPress} onClick={onTap}>
      {children}
    </span>
  );
}

/** A row's drag handle, chevron, title and actions button (marks in their place until `controls`). */
function FolderRow({
  node,
  canEdit,
  hasChildItems,
  isExpanded,
}: {
  node: FolderNode;
  canEdit: boolean;
  hasChildItems: boolean;
  isExpanded: boolean;
}) {
  const rows = useContext(RowsContext);
  const actions = useRef<HTMLButtonElement>(null);
  const { controls, menuOnceReady, onMenu } = rows;
  // The menu asked for through the mark opens beside the button that replaced it.
  useLayoutEffect(() => {
    if (controls && menuOnceReady === node.id && actions.current) onMenu(node, actions.current, 'mouse');
  }, [controls, menuOnceReady, node, onMenu]);
  const chevron = <span aria-hidden="true">{isExpanded ? '▾' : '▸'}</span>;
  const open = rows.openMenu === node.id;
  // Until `controls`, each button is a mark for pointers only (hidden from assistive technology, which reaches the
  // buttons through the focus); a press on a mark is kept from the row and does what the button would.
  return (
    <div className="folder-row">
      {canEdit &&
        (controls ? (
          <AriaButton slot="drag" className="folder-drag" aria-label={`Drag ${node.title}`}>
            ⠿
          </AriaButton>
        ) : (
          <span className="folder-drag" aria-hidden="true">
            ⠿
          </span>
        ))}
      {!hasChildItems ? (
        <span className="folder-chevron" aria-hidden="true" />
      ) : controls ? (
        <AriaButton slot="chevron" className="folder-chevron" aria-label={isExpanded ? 'Collapse' : 'Expand'}>
          {chevron}
        </AriaButton>
      ) : (
        <Mark className="folder-chevron" onTap={() => rows.toggle(node.id)}>
          {chevron}
        </Mark>
      )}
      <span className="folder-title">{node.title}</span>
      {canEdit &&
        (controls ? (
          <AriaButton
            ref={actions}
            className="folder-menu-button"
            aria-label={`Actions for folder ${node.title}`}
            aria-haspopup="menu"
            aria-expanded={open}
            aria-controls={open ? rows.menuId : undefined}
            onPress={(e) => {
              // Focus goes back here when the menu closes (some browsers do not focus a clicked button).
              if (e.target instanceof HTMLElement) e.target.focus({ preventScroll: true });
              onMenu(node, e.target, e.pointerType);
            }}
          >
            <span aria-hidden="true">⋯</span>
          </AriaButton>
        ) : (
          <Mark className="folder-menu-button" onTap={() => rows.requestMenu(node.id)}>
            ⋯
          </Mark>
        ))}
    </div>
  );
}

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
}: {
  code: string;
  index: FolderIndex;
  selected?: number;
  onSelect: (id: number | undefined) => void;
  canEdit: boolean;
}) {
  const writes = useRepositoryWrites(code);
  const [pending, setPending] = useState<Pending>();
  const [expanded, setExpanded] = useState<Set<Key>>(() => {
    // The open folder's ancestors start expanded, so it is visible.
    const open = new Set<Key>();
    let n = selected ? index.byId.get(selected) : undefined;
    while (n?.parentId) {
      open.add(n.parentId);
      n = index.byId.get(n.parentId);
    }
    return open;
  });
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
    () => ({ controls, openMenu: menu?.id, menuId, onMenu, toggle, menuOnceReady, requestMenu }),
    [controls, menu?.id, menuId, onMenu, toggle, menuOnceReady, requestMenu],
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
            // Back to the button the menu came from: React Aria's tree would otherwise give the focus to the row
            // it last focused, which a keyboard user did not leave for the menu.
            // The tree restores its row a frame or two after the menu closes, later on a busy machine: for a few
            // frames, a focus on a row (or on nothing) goes back to the button, until the person acts again or the
            // focus goes anywhere else.
            const button = menu.button;
            if (!(button instanceof HTMLElement)) return;
            let frames = 0;
            const stop = () => {
              frames = Infinity;
              window.removeEventListener('keydown', stop, true);
              window.removeEventListener('pointerdown', stop, true);
            };
            window.addEventListener('keydown', stop, true);
            window.addEventListener('pointerdown', stop, true);
            const settle = () => {
              if (!button.isConnected || frames++ >= 12) return stop();
              const active = document.activeElement;
              if (active !== button) {
                if (active && active !== document.body && active.getAttribute('role') !== 'row')
                  return stop();
                button.focus({ preventScroll: true });
              }
              requestAnimationFrame(settle);
            };
            requestAnimationFrame(settle);
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

/** A folder's actions, beside the row's actions button (`triggerRef`); focus goes back to it on close. */
function FolderMenu({
  id,
  index,
  folder,
  keyboard,
  triggerRef,
  onAction,
  onClose,
}: {
  id: string;
  index: FolderIndex;
  folder: FolderNode;
  /** Opened from the keyboard (or a screen reader): the first item takes the focus, as in a menu button. */
  keyboard: boolean;
  triggerRef: RefObject<Element | null>;
  onAction: (action: Key) => void;
  onClose: () => void;
}) {
  const siblings = siblingsOf(index, folder);
  const at = siblings.findIndex((s) => s.id === folder.id);
  return (
    <Popover
      className="popover"
      placement="bottom end"
      triggerRef={triggerRef}
      isOpen
      onOpenChange={(open) => !open && onClose()}
      aria-label={`Actions for folder ${folder.title}`}
    >
      <Menu
        id={id}
        className="menu"
        aria-label={`Actions for folder ${folder.title}`}
        autoFocus={keyboard ? 'first' : true}
        onAction={onAction}
        onClose={onClose}
        disabledKeys={[...(at === 0 ? ['up'] : []), ...(at === siblings.length - 1 ? ['down'] : [])]}
      >
        <MenuItem id="sub" className="menu-item">
          New subfolder…
        </MenuItem>
        <MenuItem id="rename" className="menu-item">
          Rename…
        </MenuItem>
        <MenuItem id="up" className="menu-item">
          Move up
        </MenuItem>
        <MenuItem id="down" className="menu-item">
          Move down
        </MenuItem>
        <MenuItem id="move" className="menu-item">
          Move to…
        </MenuItem>
        <MenuItem id="delete" className="menu-item menu-item-danger">
          Delete…
        </MenuItem>
      </Menu>
    </Popover>
  );
}

function FolderNameDialog({
  index,
  pending,
  writes,
  onDone,
}: {
  index: FolderIndex;
  pending: { kind: 'create'; parent?: FolderNode } | { kind: 'rename'; folder: FolderNode };
  writes: Writes;
  onDone: (parentId?: number) => void;
}) {
  const renaming = pending.kind === 'rename';
  const [title, setTitle] = useState(renaming ? pending.folder.title : '');
  const [error, setError] = useState<string>();
  const busy = writes.createFolder.isPending || writes.editFolder.isPending;
  const parentPath = (parent?: FolderNode) => {
    const out: string[] = [];
    let n = parent;
    while (n) {
      out.unshift(n.title);
      n = n.parentId ? index.byId.get(n.parentId) : undefined;
    }
    return out;
  };
  const submit = () => {
    const name = title.trim();
    if (!name) return setError('Give the folder a name.');
    const onError = (e: Error) =>
      setError(
        isApiError(e, 409)
          ? `A folder named “${name}” is already there.`
          : (isApiError(e) && e.fieldErrors().title) || e.message,
      );
    if (renaming)
      writes.editFolder.mutate(
        { id: pending.folder.id, title: name },
        { onSuccess: () => onDone(), onError },
      );
    else {
      const parent = pending.parent;
      if (
        parent?.children.some((c) => c.title === name) ||
        (!parent && index.roots.some((r) => r.title === name))
      )
        return setError(`A folder named “${name}” is already there.`);
      writes.createFolder.mutate([...parentPath(parent), name], {
        onSuccess: () => onDone(parent?.id),
        onError,
      });
    }
  };
  return (
    <Dialog
      title={
        renaming
          ? `Rename “${pending.folder.title}”`
          : pending.parent
            ? `New folder in “${pending.parent.title}”`
            : 'New folder'
      }
      isOpen
      onOpenChange={(open) => !open && onDone()}
      isDismissable={!busy}
    >
      <Form
        validationErrors={error ? { title: error } : {}}
        validationBehavior="aria"
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <TextField
          label="Folder name"
          name="title"
          value={title}
          onChange={(v) => {
            setTitle(v);
            setError(undefined);
          }}
          autoFocus
          maxLength={255}
        />
        <div className="dialog-actions">
          <Button slot="close" isDisabled={busy}>
            Cancel
          </Button>
          <Button type="submit" variant="primary" isDisabled={busy}>
            {renaming ? 'Rename' : 'Create folder'}
          </Button>
        </div>
      </Form>
    </Dialog>
  );
}

/** The keyboard way to move a folder anywhere: pick the new parent, then the place among its folders. */
function MoveFolderDialog({
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
                <option key={f.id} value={f.id}>
                  {'\u2003'.repeat(f.depth)}
                  {f.title}
                </option>
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

/** Says exactly what goes (subfolders and test cases, counted) before anything does. */
function DeleteFolderDialog({
  code,
  folder,
  writes,
  onDone,
}: {
  code: string;
  folder: FolderNode;
  writes: Writes;
  onDone: (deleted: boolean) => void;
}) {
  const ids = subtreeIds(folder);
  const cases = useQuery(listPageQuery(code, { folders: ids, sortField: 'id', sortOrder: 'asc' }, 0));
  const subfolders = ids.length - 1;
  const total = cases.data?.total;
  const [error, setError] = useState<string>();
  const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  return (
    <Dialog
      title={`Delete folder “${folder.title}”?`}
      isOpen
      onOpenChange={(open) => !open && onDone(false)}
      isDismissable={!writes.deleteFolder.isPending}
    >
      <p>
        {total === undefined
          ? 'Counting what it holds…'
          : subfolders === 0 && total === 0
            ? 'The folder is empty. Nothing else goes with it.'
            : `This also deletes ${plural(subfolders, 'subfolder', 'subfolders')} and ${plural(total, 'test case', 'test cases')} in it. Runs keep the results of those cases.`}
      </p>
      {error && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
      <div className="dialog-actions">
        <Button slot="close" isDisabled={writes.deleteFolder.isPending}>
          Cancel
        </Button>
        <Button
          variant="danger"
          isDisabled={total === undefined || writes.deleteFolder.isPending}
          onPress={() =>
            writes.deleteFolder.mutate(folder.id, {
              onSuccess: () => onDone(true),
              onError: (e) => setError(e.message),
            })
          }
        >
          Delete folder
        </Button>
      </div>
    </Dialog>
  );
}
