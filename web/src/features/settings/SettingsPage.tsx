import { useDocumentTitle } from '../../components/useDocumentTitle';
import { ApiKeysSection } from './ApiKeysSection';
import { AppearanceSection } from './AppearanceSection';
import { KeyboardSection } from './KeyboardSection';
import { PasswordSection } from './PasswordSection';
import { ProfileSection } from './ProfileSection';
import { TwoFactorSection } from './TwoFactorSection';
import './settings.css';

/** A person's own settings, one section (and one file) each. */
export function SettingsPage() {
  useDocumentTitle('Your settings');
  return (
    <div className="page page-narrow settings">
      <h1 className="page-title">Your settings</h1>
      <ProfileSection />
      <PasswordSection />
      <TwoFactorSection />
      <ApiKeysSection />
      <AppearanceSection />
      <KeyboardSection />
    </div>
  );
}
