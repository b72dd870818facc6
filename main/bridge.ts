/** What the preload exposes to the console as `window.enrolla`: data only, no IPC handles. */
export interface ConsoleBridge {
  baseUrl: string;
  token: string;
}

export const BRIDGE_ARG_PREFIX = '--enrolla-bridge=';
