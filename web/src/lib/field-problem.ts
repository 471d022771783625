import { formErrorsOf, type FormErrors } from './useForm';

/** A form's own check that failed before anything was sent: shown beside its field, like the service's. */
export class FieldProblem extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/** useForm's `errors`: a FieldProblem beside its field, anything else as the service's answer reads. */
export const fieldProblemOr = (e: unknown): FormErrors =>
  e instanceof FieldProblem ? { fields: { [e.field]: e.message } } : formErrorsOf(e);
