/** What the preload exposes to the console as `window.enrolla`: data only, no IPC handles. */
export interface ConsoleBridge {
  baseUrl: string;
  token: string;
}

/**
 * The one IPC channel: the preload asks for the bridge synchronously (the console reads it
 * as it loads) and the main process answers only its console window. The token never goes on
 * a command line, where other local users could read it (/proc/<pid>/cmdline).
 */
export const BRIDGE_CHANNEL = 'enrolla:bridge';
