// aws-local-stepfunctions 3 calls Promise.withResolvers, which Node 20 lacks (Node 22 has it).
// The local runtime loads the same polyfill; see functions/local/polyfill.ts.
import '../../functions/local/polyfill.js';
