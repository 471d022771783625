import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import {
  Button,
  Header,
  Menu,
  MenuItem,
  MenuSection,
  MenuTrigger,
  Popover,
  Separator,
} from 'react-aria-components';
import { isAdmin, meQuery, signOut } from '../../session/session';
import { useShortcuts } from './Shortcuts';

const initials = (name: string, email: string) =>
  (name.trim() || email)
    .split(/\s+/)
    .slice(0, 2)
    .map((w) => w[0]?.toUpperCase() ?? '')
    .join('');

export function UserMenu() {
  const me = useQuery(meQuery).data;
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const shortcuts = useShortcuts();
  if (!me) return null;

  async function onAction(key: React.Key) {
    if (key === 'shortcuts') shortcuts.open();
    if (key === 'settings') await navigate({ to: '/settings' });
    if (key === 'people') await navigate({ to: '/people' });
    if (key === 'admin') await navigate({ to: '/admin' });
    if (key === 'sign-out') {
      try {
        await signOut();
      } finally {
        // Whatever the answer, nothing of this person's data stays in the page.
        queryClient.clear();
        await navigate({ to: '/sign-in', search: {}, replace: true });
      }
    }
  }

  return (
    <MenuTrigger>
      <Button className="user-button">
        <span className="avatar" aria-hidden="true">
          {initials(me.name, me.email)}
        </span>
        {/* The visible name is part of the button's name (WCAG 2.5.3), even where only the avatar shows. */}
        <span className="visually-hidden">Account: </span>
        <span className="user-name">{me.name || me.email}</span>
      </Button>
      <Popover className="popover" placement="bottom end">
        <Menu className="menu" onAction={onAction} aria-label="Account">
          <MenuSection>
            <Header className="menu-header">
              <span className="menu-header-name">{me.name || me.email}</span>
              <span className="menu-header-detail">{me.email}</span>
              <span className="menu-header-detail">Role: {me.role}</span>
            </Header>
          </MenuSection>
          <Separator className="menu-separator" />
          <MenuItem id="settings" className="menu-item">
            Your settings
          </MenuItem>
          {isAdmin(me.role) && (
            <MenuItem id="people" className="menu-item">
              People
            </MenuItem>
          )}
          {isAdmin(me.role) && (
            <MenuItem id="admin" className="menu-item">
              Administration
            </MenuItem>
          )}
          <MenuItem id="shortcuts" className="menu-item">
            Keyboard shortcuts
          </MenuItem>
          <MenuItem id="sign-out" className="menu-item">
            Sign out
          </MenuItem>
        </Menu>
      </Popover>
    </MenuTrigger>
  );
}
