import { useEffect, useMemo, useRef, useState, type KeyboardEvent, type MouseEvent } from 'react';
import { useQueries, useQuery } from '@tanstack/react-query';
import { Link, useNavigate } from '@tanstack/react-router';
import { Button, Menu, MenuItem, MenuTrigger, Popover } from 'react-aria-components';
import { useVirtualizer } from '@tanstack/react-virtual';
import { EmptyState, ErrorState, Loading } from '../../components/Status';
import { isSingleKeyShortcut, useKeyDown } from '../../lib/keys';
import { listPageQuery, PAGE_SIZE, type ListedCase, type ListFilter } from './api';
import type { FolderIndex } from './folder-tree';
import { formatCountOf } from '../../lib/format';
import { folderPath } from '../../lib/folder-path';
import { FolderPath } from '../../components/FolderPath';
import { Highlighted } from './highlight';

const ROW_HEIGHT = 48;
/** A search's rows hold a line of the matching text under the title. */
const SEARCH_ROW_HEIGHT = 68;
/** Rows kept beyond the visible ones: the DOM holds a screenful plus this, far below 200. */
const OVERSCAN = 12;

export interface Selection {
  ids: Set<string>;
  toggle: (id: string, on?: boolean) => void;
  setMany: (ids: string[], on: boolean) => void;
  clear: () => void;
}

/** A row's actions: open it, or duplicate it (the editor opens prefilled with a copy). */
function RowMenu({ code, c }: { code: string; c: ListedCase }) {
  const navigate = useNavigate();
  const name = `${code}-${c.seq} ${c.title}`;
  return (
    <MenuTrigger>
      <Button className="folder-menu-button case-menu-button" aria-label={`Actions for ${name}`}>
        <span aria-hidden="true">⋯</span>
      </Button>
      <Popover className="popover" placement="bottom end">
        <Menu
          className="menu"
          aria-label={`Actions for ${name}`}
          onAction={(action) =>
            void navigate(
              action === 'duplicate'
                ? {
                    to: '/project/$code/tcase/new',
                    params: { code },
                    search: { folder: c.folderId, copy: c.seq },
                  }
                : { to: '/project/$code/tcase/$seq', params: { code, seq: String(c.seq) } },
            )
          }
        >
          <MenuItem id="open" className="menu-item">
            Open
          </MenuItem>
          <MenuItem id="duplicate" className="menu-item">
            Duplicate…
          </MenuItem>
        </Menu>
      </Popover>
    </MenuTrigger>
  );
}

/**
 * The cases matching the filter, fetched a page at a time as they scroll into view (any page first: a jump
 * to the end of 50,000 cases fetches only the pages shown), with only the visible rows in the DOM.
 */
export function CaseList({
  code,
  filter,
  folders,
  selection,
  hasFilter,
  listRef,
}: {
  code: string;
  filter: ListFilter;
  folders: FolderIndex | undefined;
  selection: Selection;
  hasFilter: boolean;
  listRef: React.RefObject<HTMLDivElement | null>;
}) {
  const navigate = useNavigate();
  const first = useQuery(listPageQuery(code, filter, 0));
  const total = first.data?.total ?? 0;
  const rows = useVirtualizer({
    count: total,
    getScrollElement: () => listRef.current,
    estimateSize: () => (filter.q ? SEARCH_ROW_HEIGHT : ROW_HEIGHT),
    overscan: OVERSCAN,
  });
  const items = rows.getVirtualItems();
  const pageNumbers = useMemo(() => {
    if (!items.length) return [0];
    const from = Math.floor(items[0].index / PAGE_SIZE);
    const to = Math.floor(items[items.length - 1].index / PAGE_SIZE);
    const out: number[] = [];
    for (let p = from; p <= to; p++) out.push(p);
    return out;
  }, [items]);
  const pages = useQueries({
    queries: pageNumbers.map((p) => ({ ...listPageQuery(code, filter, p), enabled: !!first.data })),
  });
  const rowAt = (i: number): ListedCase | undefined => {
    const p = Math.floor(i / PAGE_SIZE);
    const data = p === 0 ? first.data : pages[pageNumbers.indexOf(p)]?.data;
    return data?.data[i - p * PAGE_SIZE];
  };

  // The focused row (j/k, arrows) and the anchor of a shift-click range.
  const [active, setActive] = useState(0);
  const anchor = useRef<number | undefined>(undefined);
  const filterKey = JSON.stringify(filter);
  useEffect(() => {
    setActive(0);
    anchor.current = undefined;
    rows.scrollToOffset(0);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [filterKey]);

  const focusRow = (i: number) => {
    const to = Math.max(0, Math.min(total - 1, i));
    setActive(to);
    rows.scrollToIndex(to, { align: 'auto' });
    const link = () => listRef.current?.querySelector<HTMLElement>(`[data-index="${to}"] .case-link`);
    // A row out of view exists once the virtualiser has rendered it.
    const now = link();
    if (now) now.focus();
    else requestAnimationFrame(() => link()?.focus());
  };

  const openRow = (c: ListedCase) =>
    void navigate({ to: '/project/$code/tcase/$seq', params: { code, seq: String(c.seq) } });

  const select = (i: number, e: { shiftKey: boolean }) => {
    const c = rowAt(i);
    if (!c) return;
    if (e.shiftKey && anchor.current !== undefined) {
      const [a, b] = anchor.current < i ? [anchor.current, i] : [i, anchor.current];
      const ids: string[] = [];
      for (let k = a; k <= b; k++) {
        const row = rowAt(k);
        if (row) ids.push(row.id);
      }
      selection.setMany(ids, true);
    } else {
      selection.toggle(c.id);
      anchor.current = i;
    }
  };

  // j / k anywhere on the page (not while typing), when single-key shortcuts are on.
  useKeyDown((e) => {
    if (!isSingleKeyShortcut(e) || document.querySelector('[role="dialog"]')) return;
    if (e.key === 'j' || e.key === 'k') {
      e.preventDefault();
      const inList = listRef.current?.contains(document.activeElement);
      focusRow(inList ? active + (e.key === 'j' ? 1 : -1) : active);
    }
  });

  /** Keys and clicks of the row's own controls, not of its actions menu (a portal, yet a React child). */
  const fromRow = (e: KeyboardEvent | MouseEvent) =>
    (e.currentTarget as HTMLElement).contains(e.target as Node) &&
    !(e.target as HTMLElement).closest('[aria-haspopup]');

  const onRowKey = (e: KeyboardEvent, i: number) => {
    if (!fromRow(e)) return;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      focusRow(i + (e.key === 'ArrowDown' ? 1 : -1));
    } else if (e.key === ' ' && !(e.target instanceof HTMLInputElement)) {
      e.preventDefault();
      select(i, e);
    } else if (e.key === 'Home' || e.key === 'End') {
      e.preventDefault();
      focusRow(e.key === 'Home' ? 0 : total - 1);
    }
  };

  const onRowClick = (e: MouseEvent, i: number) => {
    // The title is a link and the box a checkbox: a click elsewhere on the row selects it.
    const t = e.target as HTMLElement;
    if (!fromRow(e) || t.closest('a, input, button')) return;
    select(i, e);
  };

  if (first.isPending) return <Loading label="Loading the test cases…" />;
  if (first.isError)
    return (
      <ErrorState
        title="The test cases could not be loaded."
        error={first.error}
        onRetry={() => first.refetch()}
      />
    );
  if (total === 0)
    return hasFilter ? (
      <EmptyState title="No test case matches these filters.">
        <p>Clear the search or a filter, or pick another folder.</p>
      </EmptyState>
    ) : (
      <EmptyState title="No test cases here yet.">
        <p>Press “New test case” (or n) to write one, or upload results with the CLI to create them.</p>
      </EmptyState>
    );

  const allLoaded = items.map((it) => rowAt(it.index)).filter((c): c is ListedCase => !!c);
  const allSelected = allLoaded.length > 0 && allLoaded.every((c) => selection.ids.has(c.id));
  return (
    <>
      <div className="case-list-header">
        <input
          type="checkbox"
          aria-label="Select the test cases shown"
          checked={allSelected}
          onChange={(e) =>
            selection.setMany(
              allLoaded.map((c) => c.id),
              e.target.checked,
            )
          }
        />
        <span className="muted" aria-live="polite">
          {formatCountOf(total, 'test case')}
          {first.isPlaceholderData ? ' · updating…' : ''}
        </span>
      </div>
      <div ref={listRef} className="virtual-scroller case-scroller" tabIndex={-1}>
        <ul className="case-rows" style={{ height: rows.getTotalSize() }} aria-label="Test cases">
          {items.map((item) => {
            const c = rowAt(item.index);
            const selected = !!c && selection.ids.has(c.id);
            return (
              <li
                key={item.index}
                data-index={item.index}
                className={`case-row repo-row${selected ? ' is-selected' : ''}${item.index === active ? ' is-active' : ''}`}
                aria-setsize={total}
                aria-posinset={item.index + 1}
                style={{ transform: `translateY(${item.start}px)`, height: item.size }}
                onClick={(e) => onRowClick(e, item.index)}
                onKeyDown={(e) => onRowKey(e, item.index)}
              >
                {c ? (
                  <>
                    <input
                      type="checkbox"
                      aria-label={`Select ${code}-${c.seq} ${c.title}`}
                      checked={selected}
                      onClick={(e) => {
                        e.stopPropagation();
                        select(item.index, e);
                      }}
                      onChange={() => {}}
                    />
                    <span className="project-code">
                      {code}-{c.seq}
                    </span>
                    <span className="case-main">
                      <Link
                        to="/project/$code/tcase/$seq"
                        params={{ code, seq: String(c.seq) }}
                        className="case-title case-link"
                        onFocus={() => setActive(item.index)}
                        onKeyDown={(e) => {
                          if (e.key === 'Enter') {
                            e.preventDefault();
                            openRow(c);
                          }
                        }}
                      >
                        {c.highlight?.title ? <Highlighted html={c.highlight.title} /> : c.title}
                      </Link>
                      {c.highlight?.text && (
                        <span className="case-snippet muted">
                          <Highlighted html={c.highlight.text} />
                        </span>
                      )}
                    </span>
                    <span className="case-meta">
                      {(c.tags ?? []).slice(0, 3).map((t) => (
                        <span key={t.id} className="chip chip-small">
                          {t.title}
                        </span>
                      ))}
                      {folders && (
                        <FolderPath
                          className="case-folder muted"
                          path={folderPath(folders.byId, c.folderId)}
                          max={40}
                        />
                      )}
                      <span className={`priority priority-${c.priority}`}>{c.priority}</span>
                    </span>
                    <RowMenu code={code} c={c} />
                  </>
                ) : (
                  <span className="muted row-placeholder">Loading…</span>
                )}
              </li>
            );
          })}
        </ul>
      </div>
    </>
  );
}
