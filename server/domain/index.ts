// The domain's entry point: errors that know nothing of HTTP, and the wording of invalid input.
export { ApiError, ErrorKind } from './api-error.js';
export { formatIssues } from './validation-issues.js';
