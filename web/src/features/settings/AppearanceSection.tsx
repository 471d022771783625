import { setTheme, THEMES, useSystemDark, useTheme, type Theme } from '../../lib/theme';

const LABELS: Record<Theme, string> = { light: 'Light', dark: 'Dark', system: 'Same as the system' };

/** Light, dark or the system's theme, for this browser. Applies at once; nothing to save. */
export function AppearanceSection() {
  const theme = useTheme();
  const systemDark = useSystemDark();
  return (
    <section className="panel" aria-labelledby="appearance">
      <h2 id="appearance" className="panel-title">
        Appearance
      </h2>
      <fieldset className="theme-choices">
        <legend>Theme</legend>
        {THEMES.map((t) => (
          <label key={t} className={`theme-choice theme-choice-${t}`}>
            <input type="radio" name="theme" value={t} checked={theme === t} onChange={() => setTheme(t)} />
            <span className="theme-swatch" aria-hidden="true" />
            <span>
              {LABELS[t]}
              {t === 'system' && <span className="muted"> (now {systemDark ? 'dark' : 'light'})</span>}
            </span>
          </label>
        ))}
      </fieldset>
      <p className="muted">This setting is kept in this browser.</p>
    </section>
  );
}
