// What the rest of the harness may use of options/: its other files are its own.
export { aBoolean, aString, checkOptions, integerAtLeast, refuseUnknownOptions } from './check-options.js';
export { HarnessOptionError, type HarnessOptionErrorCode } from './harness-option-error.js';
