import { useMemo, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import {
  Button as AriaButton,
  Header,
  Menu,
  MenuItem,
  MenuSection,
  MenuTrigger,
  Popover,
  Separator,
} from 'react-aria-components';
import { Dialog } from '../../components/Dialog';
import { queryKeys } from '../../api/keys';
import { meQuery } from '../../session/session';
import { createView, viewsQuery, type SavedView, type ViewFilters, type ViewPage } from './api';
import { filtersOf, sameFilters } from './filters';
import { ManageViewsDialog } from './ManageViewsDialog';
import { ViewForm } from './ViewForm';
import './views.css';

export interface ViewsMenuProps<S extends object> {
  code: string;
  page: ViewPage;
  /** The page's address search, as its route validated it. */
  current: S;
  /** A saved view's filters as the page's route reads them (what it no longer takes is dropped). */
  normalize: (filters: ViewFilters) => S;
  /** Goes to a view's search. */
  apply: (search: S) => void;
}

/**
 * The "Views" menu of a page whose filters live in its address: apply a saved view, save the current filters
 * under a name (private, or shared with the project), and rename or delete views. The button names the view the
 * address equals, and the menu marks it.
 */
export function ViewsMenu<S extends object>({ code, page, current, normalize, apply }: ViewsMenuProps<S>) {
  const queryClient = useQueryClient();
  const me = useQuery(meQuery).data;
  const views = useQuery(viewsQuery(code, page));
  const [saving, setSaving] = useState(false);
  const [managing, setManaging] = useState(false);
  // Viewers keep private views; sharing is a write to the project (D3, docs/api-decisions.md#saved-views).
  const canShare = me !== undefined && me.role !== 'viewer';

  const list = useMemo(() => views.data ?? [], [views.data]);
  const active = useMemo(
    () => list.find((v) => sameFilters(normalize(v.filters), current)),
    [list, normalize, current],
  );
  const mine = list.filter((v) => v.owner.id === me?.id);
  const others = list.filter((v) => v.owner.id !== me?.id);
  const selected = active ? [String(active.id)] : [];

  const onAction = (key: React.Key) => {
    if (key === 'save') setSaving(true);
    else if (key === 'manage') setManaging(true);
    else {
      const view = list.find((v) => String(v.id) === key);
      if (view) apply(normalize(view.filters));
    }
  };

  const item = (v: SavedView, byline: boolean) => (
    <MenuItem key={v.id} id={String(v.id)} className="menu-item views-item" textValue={v.name}>
      {({ isSelected }) => (
        <>
          <span className="views-check" aria-hidden="true">
            {isSelected ? '✓' : ''}
          </span>
          <span className="views-item-name">{v.name}</span>
          <span className="muted views-item-meta">
            {byline ? `by ${v.owner.name}` : v.shared ? 'shared' : ''}
          </span>
        </>
      )}
    </MenuItem>
  );

  return (
    <>
      <MenuTrigger>
        <AriaButton className="btn btn-secondary views-button">
          {/* One run of text, so the button's name reads "Views: <the current view>". */}
          <span className="views-label">
            Views{active && ': '}
            {active && <span className="views-active">{active.name}</span>}
          </span>
          <span className="chevron" aria-hidden="true" />
        </AriaButton>
        <Popover className="popover" placement="bottom end">
          <Menu className="menu" aria-label="Saved views" onAction={onAction}>
            {views.isPending ? (
              <MenuItem id="loading" className="menu-item" isDisabled>
                Loading the views…
              </MenuItem>
            ) : views.isError ? (
              <MenuItem id="error" className="menu-item" isDisabled>
                The views could not be loaded
              </MenuItem>
            ) : list.length === 0 ? (
              <MenuItem id="none" className="menu-item" isDisabled>
                No saved views yet
              </MenuItem>
            ) : null}
            {mine.length > 0 && (
              <MenuSection selectionMode="single" selectedKeys={selected}>
                <Header className="menu-header menu-header-small">Your views</Header>
                {mine.map((v) => item(v, false))}
              </MenuSection>
            )}
            {others.length > 0 && (
              <MenuSection selectionMode="single" selectedKeys={selected}>
                <Header className="menu-header menu-header-small">Shared with the project</Header>
                {others.map((v) => item(v, true))}
              </MenuSection>
            )}
            <Separator className="menu-separator" />
            <MenuItem id="save" className="menu-item">
              Save current view…
            </MenuItem>
            {list.some((v) => v.editable) && (
              <MenuItem id="manage" className="menu-item">
                Rename or delete views…
              </MenuItem>
            )}
          </Menu>
        </Popover>
      </MenuTrigger>
      <Dialog title="Save current view" isOpen={saving} onOpenChange={setSaving}>
        {saving && (
          <ViewForm
            initial={{ name: '', shared: false }}
            canShare={canShare}
            submitLabel="Save view"
            onCancel={() => setSaving(false)}
            onSubmit={async ({ name, shared }) => {
              await createView(code, { name, page, filters: filtersOf(current) as ViewFilters, shared });
              await queryClient.invalidateQueries({ queryKey: queryKeys.views(code, page) });
              setSaving(false);
            }}
          />
        )}
      </Dialog>
      <ManageViewsDialog
        code={code}
        page={page}
        views={list}
        userId={me?.id}
        canShare={canShare}
        isOpen={managing}
        onOpenChange={setManaging}
      />
    </>
  );
}
