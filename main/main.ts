// Electron main process: the one file that imports Electron; everything else is in shell.ts,
// written against the narrow types of electron-surface.ts so it is tested with fakes.
import { app, BrowserWindow, dialog, ipcMain, Menu, safeStorage, session } from 'electron';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runShell } from './shell.js';

void runShell(
  { app, BrowserWindow, dialog, ipcMain, Menu, safeStorage, session },
  {
    env: process.env,
    platform: process.platform,
    resourcesPath: process.resourcesPath,
    mainDir: path.dirname(fileURLToPath(import.meta.url)),
    stderr: (text) => process.stderr.write(text),
  },
);
