/**
 * How much of a posted form is read: the whole body, each field's value and
 * name, and how many fields, files and parts it may have. Past any of them the
 * form is refused (413) as it is read, never cut short or buffered whole.
 * Pure: the numbers follow the board's own limits.
 */

export interface FormLimits {
  /** Bytes of the whole body as sent (every field, file and boundary). */
  body: number;
  fieldSize: number;
  fieldNameSize: number;
  fields: number;
  files: number;
  fileSize: number;
}

/** The sign-in forms, which anybody may post: a code of 47 characters, or an address with its token and the page to land on; with room to spare. */
export const SIGNIN_FORM: FormLimits = { body: 4096, fieldSize: 1024, fieldNameSize: 100, fields: 8, files: 0, fileSize: 0 };

/** Every other form, of a signed-in person: files up to maxUploadBytes in all, and text no field of a run could exceed. */
export function formLimits(s: { maxUploadBytes: number; runDataBytes: number }): FormLimits {
  return { body: s.maxUploadBytes + s.runDataBytes + 64 * 1024, fieldSize: s.runDataBytes, fieldNameSize: 200, fields: 1000, files: 20, fileSize: s.maxUploadBytes };
}
