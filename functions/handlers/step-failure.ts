/** The readable reason of a failure Step Functions caught (its Cause is the Lambda's error JSON). */
export const failureReason = (error: {
  Error?: string | undefined;
  Cause?: string | undefined;
}): string => {
  try {
    const cause = JSON.parse(error.Cause ?? '') as { errorMessage?: unknown };
    if (typeof cause.errorMessage === 'string')
      return `${error.Error ?? 'Error'}: ${cause.errorMessage}`;
  } catch {
    // The cause is not the Lambda error JSON: use it as it is.
  }
  return [error.Error, error.Cause].filter(Boolean).join(': ') || 'the turn failed';
};
