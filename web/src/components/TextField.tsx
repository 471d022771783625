import {
  FieldError,
  Input,
  Label,
  Text,
  TextArea,
  TextField as AriaTextField,
  type TextFieldProps as AriaTextFieldProps,
} from 'react-aria-components';

export interface TextFieldProps extends AriaTextFieldProps {
  label: string;
  description?: string;
  multiline?: boolean;
  placeholder?: string;
}

/**
 * A labelled field whose error (from the browser's checks or from the API's `details`, through the
 * form's `validationErrors`) is shown in words right under it and announced with it.
 */
export function TextField({
  label,
  description,
  multiline,
  placeholder,
  className,
  ...props
}: TextFieldProps) {
  return (
    <AriaTextField {...props} className={`field${className ? ` ${className}` : ''}`}>
      <Label className="field-label">{label}</Label>
      {multiline ? (
        <TextArea className="field-input field-textarea" placeholder={placeholder} />
      ) : (
        <Input className="field-input" placeholder={placeholder} />
      )}
      {/* The error sits right under what it is about, before the hint. */}
      <FieldError className="field-error" />
      {description && (
        <Text slot="description" className="field-description">
          {description}
        </Text>
      )}
    </AriaTextField>
  );
}
