import { spawn, spawnSync, type ChildProcess } from 'node:child_process';

/**
 * A display for a real Electron window: the session's own, or, on Linux without one, a virtual
 * X server (Debian's `xvfb`) started for the suite. Null with the reason when neither exists.
 */
export async function displayForElectron(): Promise<{ env: Record<string, string>; stop(): void } | { missing: string }> {
  if (process.platform !== 'linux' || process.env.DISPLAY || process.env.WAYLAND_DISPLAY) return { env: {}, stop() {} };
  if (spawnSync('Xvfb', ['-help']).error) return { missing: "no hay pantalla ni Xvfb (paquete de Debian 'xvfb')" };
  const display = `:${90 + Math.floor(Math.random() * 9)}`;
  const server: ChildProcess = spawn('Xvfb', [display, '-screen', '0', '1280x1024x24', '-nolisten', 'tcp'], { stdio: 'ignore' });
  await new Promise((resolve) => setTimeout(resolve, 500));
  if (server.exitCode !== null) return { missing: `Xvfb ${display} no arrancó (salida ${server.exitCode})` };
  return { env: { DISPLAY: display }, stop: () => server.kill() };
}
