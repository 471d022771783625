import { useCallback, useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link, useNavigate, useParams, useSearch } from '@tanstack/react-router';
import { Input, Label, SearchField } from 'react-aria-components';
import { PRIORITIES, PRIORITY_NAMES, type Priority } from '../../api/priorities';
import { isSingleKeyShortcut, openingEditor, useKeyDown } from '../../lib/keys';
import { Button } from '../../components/Button';
import { FolderPath } from '../../components/FolderPath';
import { ErrorState, Loading } from '../../components/Status';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import { meQuery } from '../../session/session';
import { folderCountsQuery } from '../../api/queries';
import { canImport, exportUrl } from '../imports';
import { BulkBar } from './BulkActions';
import { CaseList, type Selection } from './CaseList';
import { indexFolders, pathOf, subtreeIds } from './folder-tree';
import { MultiFilter, TextFilter } from './FilterPopover';
import { FolderTree } from './folders/FolderTree';
import {
  customFieldsQuery,
  foldersQuery,
  listFilter,
  tagsQuery,
  type CaseType,
  type ListFilter,
} from './api';
import { ViewsMenu } from '../views';
import {
  hasFilters,
  SORT_FIELDS,
  validateRepositorySearch,
  type RepositorySearch,
  type SortField,
} from './search';
import './repository.css';

const NARROW = '(max-width: 760px)';
function useNarrow(): boolean {
  return useSyncExternalStore(
    (cb) => {
      const m = window.matchMedia(NARROW);
      m.addEventListener('change', cb);
      return () => m.removeEventListener('change', cb);
    },
    () => window.matchMedia(NARROW).matches,
  );
}

/** `SHOP-5`, `shop-005`, `5`, `#5`: the number of a case of this project (the API's `q` reads the same forms). */
function caseNumberIn(text: string, code: string): number | undefined {
  const m = /^\s*#?(?:([A-Za-z0-9]+)-)?0*(\d{1,9})\s*$/.exec(text);
  if (!m || (m[1] !== undefined && m[1].toUpperCase() !== code)) return undefined;
  const n = Number(m[2]);
  return n > 0 ? n : undefined;
}

/** Typing settles before the list is asked again; short enough that results follow the last key at once. */
const SEARCH_DELAY_MS = 60;

function useSelection(): Selection {
  const [ids, setIds] = useState<Set<string>>(() => new Set());
  return useMemo(
    () => ({
      ids,
      toggle: (id, on) =>
        setIds((prev) => {
          const next = new Set(prev);
          if (on ?? !next.has(id)) next.add(id);
          else next.delete(id);
          return next;
        }),
      setMany: (list, on) =>
        setIds((prev) => {
          const next = new Set(prev);
          for (const id of list) {
            if (on) next.add(id);
            else next.delete(id);
          }
          return next;
        }),
      clear: () => setIds(new Set()),
    }),
    [ids],
  );
}

/** `/project/{CODE}/repository`: the folder tree beside the test cases, filtered by what the address says. */
export function RepositoryPage() {
  const { code: rawCode } = useParams({ from: '/app/project/$code/repository' });
  const code = rawCode.toUpperCase();
  const search = useSearch({ from: '/app/project/$code/repository' });
  const navigate = useNavigate({ from: '/project/$code/repository' });
  const narrow = useNarrow();
  useDocumentTitle(`${code} repository`);

  const me = useQuery(meQuery);
  const folders = useQuery(foldersQuery(code));
  const counts = useQuery(folderCountsQuery(code));
  const tags = useQuery(tagsQuery(code));
  const customFields = useQuery(customFieldsQuery(code));
  // Rich text is not filterable (long HTML values are not indexed); disabled fields are not offered.
  const filterFields = useMemo(
    () => (customFields.data?.customFields ?? []).filter((f) => f.enabled && f.type !== 'richtext'),
    [customFields.data],
  );
  // Only fields that have a control here are sent: a `cf_` key of an unknown, disabled or rich-text field in the
  // address is dropped rather than answered 400.
  const knownFields = useMemo(
    () => (customFields.data ? new Set(filterFields.map((f) => f.systemName)) : undefined),
    [customFields.data, filterFields],
  );
  const wantsFields = Object.keys(search).some((k) => k.startsWith('cf_'));
  const index = useMemo(() => (folders.data ? indexFolders(folders.data) : undefined), [folders.data]);
  const folder = search.folder !== undefined ? index?.byId.get(search.folder) : undefined;

  const setSearch = useCallback(
    (patch: Partial<RepositorySearch>) =>
      void navigate({ search: (prev) => ({ ...prev, ...patch }), replace: true }),
    [navigate],
  );

  // The search box answers each key; the address (and the list) follow once typing pauses.
  const [text, setText] = useState(search.q ?? '');
  const pendingSearch = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => {
    if (text === (search.q ?? '')) return;
    const t = setTimeout(() => setSearch({ q: text || undefined }), SEARCH_DELAY_MS);
    pendingSearch.current = t;
    return () => clearTimeout(t);
  }, [text, search.q, setSearch]);

  // A saved view is a place to go (Back returns): its search replaces the address's, the box shows its words.
  const applyView = useCallback(
    (view: RepositorySearch) => {
      clearTimeout(pendingSearch.current);
      setText(view.q ?? '');
      void navigate({ search: view });
    },
    [navigate],
  );

  const filter: ListFilter | undefined = useMemo(() => {
    if (search.folder !== undefined && !index) return undefined;
    // With custom-field filters in the address, the list waits for the fields that say which ones exist.
    if (wantsFields && !knownFields) return undefined;
    const f = search.folder !== undefined ? index!.byId.get(search.folder) : undefined;
    return listFilter(search, f ? subtreeIds(f) : undefined, knownFields);
  }, [search, index, knownFields, wantsFields]);
  const hasFilter = hasFilters(search);
  // What narrows the list beyond the folder and the search: the count on a phone's "Filters" button.
  const activeFilters = Object.keys(search).filter(
    (k) => !['folder', 'q', 'sort', 'order'].includes(k),
  ).length;
  const [filtersOpen, setFiltersOpen] = useState(false);

  const selection = useSelection();
  const searchRef = useRef<HTMLInputElement>(null);
  const listRef = useRef<HTMLDivElement>(null);
  const [drawer, setDrawer] = useState(false);
  // Stable, so the folder tree (memoised) does not render its rows again on each key typed in the search box.
  const selectFolder = useCallback(
    (id: number | undefined) => {
      setSearch({ folder: id });
      setDrawer(false);
    },
    [setSearch],
  );

  const newCase = useCallback(() => {
    // The create page loads (lazily) and its title takes the focus: what is typed meanwhile is its text.
    openingEditor();
    // The editor's create page; it takes the folder to start in.
    void navigate({ href: `/project/${code}/tcase/new${folder ? `?folder=${folder.id}` : ''}` });
  }, [navigate, code, folder]);

  useKeyDown((e) => {
    if (!isSingleKeyShortcut(e) || document.querySelector('[role="dialog"]')) return;
    if (e.key === '/') {
      e.preventDefault();
      searchRef.current?.focus();
    } else if (e.key === 'n') {
      e.preventDefault();
      newCase();
    }
  });

  if (folders.isError)
    return (
      <div className="page">
        <ErrorState
          title={`The repository of ${code} could not be opened.`}
          error={folders.error}
          onRetry={() => folders.refetch()}
        >
          <Link to="/">All projects</Link>
        </ErrorState>
      </div>
    );

  const tree = index ? (
    <FolderTree
      code={code}
      index={index}
      selected={search.folder}
      canEdit
      onSelect={selectFolder}
      counts={counts.data}
    />
  ) : (
    <Loading label="Loading the folders…" />
  );

  return (
    <div className="page page-wide repo-page">
      <div className="page-header">
        <h1 className="page-title">
          Repository
          {folder && index && (
            <FolderPath className="repo-folder-path" path={pathOf(index, folder.id).map((f) => f.title)} />
          )}
        </h1>
        <div className="repo-header-actions">
          <ViewsMenu
            code={code}
            page="repository"
            current={search}
            normalize={validateRepositorySearch}
            apply={applyView}
          />
          {/* Everyone who reads the repository may take it away; importing is for users and up (D3). */}
          <a className="btn btn-secondary" href={exportUrl(code)} download>
            Export CSV
          </a>
          {me.data && canImport(me.data.role) && (
            <Link className="btn btn-secondary" to="/project/$code/import" params={{ code }}>
              Import
            </Link>
          )}
          <Button variant="primary" onPress={newCase}>
            New test case
          </Button>
        </div>
      </div>

      <div className="repo-layout">
        {narrow && (
          <Button
            className="repo-folders-button"
            aria-expanded={drawer}
            aria-controls="repo-folders"
            onPress={() => setDrawer(true)}
          >
            Folder:{' '}
            {folder && index ? (
              <FolderPath path={pathOf(index, folder.id).map((f) => f.title)} max={28} />
            ) : (
              'All test cases'
            )}
          </Button>
        )}
        {/* One tree for both sizes (a drawer on a phone), so a half-typed folder name survives a resize. */}
        <aside
          id="repo-folders"
          className={`repo-aside panel${narrow ? ' is-drawer' : ''}`}
          aria-label="Folders"
          hidden={narrow && !drawer}
          onKeyDown={(e) => {
            if (narrow && e.key === 'Escape' && !e.defaultPrevented) setDrawer(false);
          }}
        >
          {narrow && (
            <Button variant="ghost" className="repo-drawer-close" onPress={() => setDrawer(false)}>
              Close folders
            </Button>
          )}
          {tree}
        </aside>
        {narrow && drawer && (
          <div className="repo-drawer-backdrop" aria-hidden="true" onClick={() => setDrawer(false)} />
        )}

        <section className="repo-main panel" aria-label="Test cases">
          <div className="repo-toolbar" role="search">
            <SearchField
              className="field repo-search"
              value={text}
              onChange={setText}
              onClear={() => setSearch({ q: undefined })}
              // Enter on a case number opens that case; words stay a search.
              onSubmit={(value) => {
                const seq = caseNumberIn(value, code);
                if (seq === undefined) return;
                // The search the typing scheduled would bring the page back here: it is not wanted now.
                clearTimeout(pendingSearch.current);
                void navigate({ to: '/project/$code/tcase/$seq', params: { code, seq: String(seq) } });
              }}
              aria-label="Search test cases by number or text"
              aria-describedby="repo-search-hint"
            >
              <Label className="field-label">Search</Label>
              <Input ref={searchRef} className="field-input" placeholder="Number or words  ( / )" />
              <span id="repo-search-hint" className="visually-hidden">
                Searches titles, preconditions and steps. Enter on a case number such as {code}-5 opens it.
              </span>
            </SearchField>
            {narrow && (
              <Button
                className="repo-filters-toggle"
                aria-expanded={filtersOpen}
                aria-controls="repo-filters"
                onPress={() => setFiltersOpen((o) => !o)}
              >
                Filters{activeFilters > 0 ? ` (${activeFilters})` : ''}
                <span aria-hidden="true">{filtersOpen ? '▴' : '▾'}</span>
              </Button>
            )}
            {/* On a phone the filters fold away behind one button, so the list stays in view. */}
            <div id="repo-filters" className="repo-filters" hidden={narrow && !filtersOpen}>
              <MultiFilter
                label="Tag"
                value={(search.tag ?? []).map(String)}
                onChange={(v) => setSearch({ tag: v.length ? v.map(Number) : undefined })}
                options={(tags.data ?? []).map((t): [string, string] => [String(t.id), t.title])}
              />
              <MultiFilter
                label="Priority"
                value={search.priority ?? []}
                onChange={(v) => setSearch({ priority: v.length ? (v as Priority[]) : undefined })}
                options={PRIORITIES.map((p): [string, string] => [p, PRIORITY_NAMES[p]])}
              />
              <MultiFilter
                label="Type"
                value={search.type ?? []}
                onChange={(v) => setSearch({ type: v.length ? (v as CaseType[]) : undefined })}
                options={[
                  ['standalone', 'Standalone'],
                  ['template', 'Template'],
                  ['filled', 'Filled from a template'],
                ]}
              />
              {filterFields.map((f) => {
                const key = `cf_${f.systemName}` as const;
                const value = search[key] ?? [];
                const onChange = (v: string[]) => setSearch({ [key]: v.length ? v : undefined });
                return f.type === 'text' ? (
                  <TextFilter key={f.id} label={f.name} value={value} onChange={onChange} />
                ) : (
                  <MultiFilter
                    key={f.id}
                    label={f.name}
                    value={value}
                    onChange={onChange}
                    options={
                      f.type === 'checkbox'
                        ? [
                            ['true', 'Checked'],
                            ['false', 'Not checked'],
                          ]
                        : (f.options ?? []).map((o): [string, string] => [o.value, o.value])
                    }
                  />
                );
              })}
              <FilterSelect
                label="Sort by"
                value={search.q && !search.sort ? 'rank' : `${search.sort ?? 'seq'}:${search.order ?? 'asc'}`}
                onChange={(v) => {
                  if (v === 'rank') return setSearch({ sort: undefined, order: undefined });
                  const [sort, order] = v.split(':') as [SortField, 'asc' | 'desc'];
                  setSearch({
                    // Number ↑ is the default, except in a search, whose default is the best match.
                    sort: sort === 'seq' && !search.q ? undefined : sort,
                    order: order === 'asc' ? undefined : order,
                  });
                }}
                options={[
                  ...(search.q ? [['rank', 'Best match'] as [string, string]] : []),
                  ...Object.entries(SORT_FIELDS).flatMap(([k, name]): [string, string][] => [
                    [`${k}:asc`, `${name} ↑`],
                    [`${k}:desc`, `${name} ↓`],
                  ]),
                ]}
              />
            </div>
            {hasFilter && (
              <Button
                variant="ghost"
                onPress={() => {
                  setText('');
                  void navigate({ search: {}, replace: true });
                }}
              >
                Clear filters
              </Button>
            )}
          </div>
          {selection.ids.size > 0 && index && <BulkBar code={code} index={index} selection={selection} />}
          {filter ? (
            <CaseList
              code={code}
              filter={filter}
              folders={index}
              selection={selection}
              hasFilter={hasFilter}
              listRef={listRef}
            />
          ) : (
            <Loading label="Loading the test cases…" />
          )}
        </section>
      </div>
    </div>
  );
}

function FilterSelect({
  label,
  value,
  onChange,
  options,
}: {
  label: string;
  value: string;
  onChange: (v: string) => void;
  options: [string, string][];
}) {
  return (
    <label className="repo-filter">
      <span className="field-label">{label}</span>
      <select className="field-input" value={value} onChange={(e) => onChange(e.target.value)}>
        {options.map(([v, name]) => (
          <option key={v} value={v}>
            {name}
          </option>
        ))}
      </select>
    </label>
  );
}
