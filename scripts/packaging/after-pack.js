// electron-builder afterPack hook: flips Enrolla's fuses in the packaged Electron binary
// before it is signed and wrapped (AppImage, deb, NSIS), then reads them back.
import path from 'node:path';
import { ENROLLA_FUSES, flipFuses, readFuses } from './fuses.js';

export function packagedBinary(context) {
  const { appOutDir, electronPlatformName, packager } = context;
  if (electronPlatformName === 'win32') return path.join(appOutDir, `${packager.appInfo.productFilename}.exe`);
  if (electronPlatformName === 'linux') return path.join(appOutDir, packager.executableName);
  const app = path.join(appOutDir, `${packager.appInfo.productFilename}.app`);
  return path.join(app, 'Contents', 'Frameworks', 'Electron Framework.framework', 'Electron Framework');
}

export default async function afterPack(context) {
  const binary = packagedBinary(context);
  await flipFuses(binary, ENROLLA_FUSES);
  const now = await readFuses(binary);
  for (const [name, enabled] of Object.entries(ENROLLA_FUSES)) {
    if (now[name] !== 'removed' && now[name] !== (enabled ? 'enabled' : 'disabled')) {
      throw new Error(`El fusible ${name} no quedó como se pidió (${now[name]})`);
    }
  }
}
