// Sandboxed preload (CommonJS, as sandboxed preloads must be): hands the console its base URL
// and token, passed by the main process as an argument, through contextBridge only.
import { contextBridge } from 'electron';

const PREFIX = '--enrolla-bridge=';
const arg = process.argv.find((a) => a.startsWith(PREFIX));
const bridge = arg ? (JSON.parse(decodeURIComponent(arg.slice(PREFIX.length))) as { baseUrl: string; token: string }) : null;
contextBridge.exposeInMainWorld('enrolla', Object.freeze({ baseUrl: bridge?.baseUrl ?? '', token: bridge?.token ?? '' }));
