import { Button as AriaButton, type ButtonProps as AriaButtonProps } from 'react-aria-components';

export interface ButtonProps extends AriaButtonProps {
  variant?: 'primary' | 'secondary' | 'ghost' | 'danger';
}

/** React Aria's button (press, keyboard and focus-visible handled alike on every device), styled by variant. */
export function Button({ variant = 'secondary', className, ...props }: ButtonProps) {
  return <AriaButton {...props} className={`btn btn-${variant}${className ? ` ${className}` : ''}`} />;
}
