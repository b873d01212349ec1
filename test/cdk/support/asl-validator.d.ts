// asl-validator 4 ships no types: `module.exports = function validator(definition, options)`.
declare module 'asl-validator' {
  interface ValidationResult {
    isValid: boolean;
    errors: unknown[];
    errorsText: (separator?: string) => string;
  }
  interface ValidatorOptions {
    checkPaths?: boolean;
    checkArn?: boolean;
  }
  /** Note: it writes a default `QueryLanguage` into every state of the definition it is given. */
  function aslValidator(definition: object, options?: ValidatorOptions): ValidationResult;
  export default aslValidator;
}
