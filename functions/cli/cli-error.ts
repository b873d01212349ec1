/** A failure the user can act on: printed as it is, on one line, without a stack. */
export class CliError extends Error {
  override readonly name = 'CliError';
}
