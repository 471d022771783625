import type { ReactNode } from 'react';
import { Button } from './Button';
import { Dialog } from './Dialog';
import { FormError } from './FormError';

export interface ConfirmDialogProps {
  /** The question, e.g. `Delete "Nightly"?`. */
  title: string;
  /** Open by default: most callers render it only while there is something to confirm. */
  isOpen?: boolean;
  onClose: () => void;
  /** What the button does, in words, e.g. "Delete webhook". */
  confirmLabel: string;
  onConfirm: () => void;
  /** While the action runs: the button spins, and neither Cancel, Escape nor a click outside closes the dialog. */
  isPending: boolean;
  /** Why the action failed, in words, shown above the buttons. */
  error?: string;
  /** A red button for what cannot be undone (the default); false for a plain one. */
  danger?: boolean;
  /** The action's button cannot be pressed yet (e.g. while what it would remove is still being counted); Cancel still can. */
  isDisabled?: boolean;
  /** What the action does and what it leaves. */
  children: ReactNode;
}

/** A question before an action (delete, revoke, close…): what it does, Cancel, and the button that does it. */
export function ConfirmDialog({
  title,
  isOpen = true,
  onClose,
  confirmLabel,
  onConfirm,
  isPending,
  error,
  danger = true,
  isDisabled,
  children,
}: ConfirmDialogProps) {
  return (
    <Dialog
      title={title}
      isOpen={isOpen}
      onOpenChange={(open) => !open && onClose()}
      isDismissable={!isPending}
    >
      {children}
      <FormError message={error} />
      <div className="dialog-actions">
        <Button slot="close" isDisabled={isPending}>
          Cancel
        </Button>
        <Button
          variant={danger ? 'danger' : 'primary'}
          isDisabled={isDisabled}
          isPending={isPending}
          onPress={onConfirm}
        >
          {confirmLabel}
        </Button>
      </div>
    </Dialog>
  );
}
