import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { appRoute } from '../../routing/layouts';

/** The signed-in person's own settings (profile, password, two-factor, keys, appearance, keyboard). */
const settingsRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/settings',
  component: lazyRouteComponent(() => import('./SettingsPage'), 'SettingsPage'),
});

export const appPages = [settingsRoute] as const;
