import { Switch } from 'react-aria-components';
import { setSingleKeyShortcuts, useSingleKeyShortcuts } from '../../lib/shortcuts';

/** Single-key shortcuts on or off, for this browser. */
export function KeyboardSection() {
  const on = useSingleKeyShortcuts();
  const setOn = setSingleKeyShortcuts;
  return (
    <section className="panel" aria-labelledby="keyboard">
      <h2 id="keyboard" className="panel-title">
        Keyboard
      </h2>
      <Switch className="switch" isSelected={on} onChange={setOn}>
        <span className="switch-track" aria-hidden="true">
          <span className="switch-thumb" />
        </span>
        Single-key shortcuts (<kbd>?</kbd>, <kbd>/</kbd>, <kbd>j</kbd>, <kbd>k</kbd>, <kbd>n</kbd>,{' '}
        <kbd>e</kbd>)
      </Switch>
      <p className="muted">
        Turn them off if you use speech input or they get in your way. Shortcuts with Ctrl or ⌘ keep working.
        This setting is kept in this browser.
      </p>
    </section>
  );
}
