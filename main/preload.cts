// Sandboxed preload (CommonJS, as sandboxed preloads must be; it can require nothing but
// 'electron'): asks the main process for the console's base URL and token on the one bridge
// channel and exposes them, frozen, through contextBridge. No IPC handle reaches the page.
import { contextBridge, ipcRenderer } from 'electron';

const CHANNEL = 'enrolla:bridge'; // BRIDGE_CHANNEL in bridge.ts (a sandboxed preload cannot import it)

function fetchBridge(): { baseUrl: string; token: string } {
  const answer: unknown = ipcRenderer.sendSync(CHANNEL);
  if (typeof answer !== 'object' || answer === null) return { baseUrl: '', token: '' };
  const { baseUrl, token } = answer as Record<string, unknown>;
  return { baseUrl: typeof baseUrl === 'string' ? baseUrl : '', token: typeof token === 'string' ? token : '' };
}

contextBridge.exposeInMainWorld('enrolla', Object.freeze(fetchBridge()));
