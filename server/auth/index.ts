// Access's entry point: API tokens and the throttle of failed authentications.
export { FailedAuthThrottle } from './throttle.js';
export { type AuthFailure, type AuthResult, TokenService } from './tokens.js';
