/**
 * The desktop shell's security decisions as pure functions, so they are tested without Electron
 * (after the Electron security checklist: only the station's own origin, its own certificate,
 * the camera for the console only, no navigation away, no new windows).
 */

/** Same scheme, host and port as the station: nothing else is the console. */
export function isConsoleUrl(url: string, stationUrl: string): boolean {
  try {
    return new URL(url).origin === new URL(stationUrl).origin;
  } catch {
    return false;
  }
}

/** Electron reports certificate fingerprints as `sha256/<base64>`; the station prints colon hex. */
export function electronFingerprint(colonHex: string): string {
  return `sha256/${Buffer.from(colonHex.replaceAll(':', ''), 'hex').toString('base64')}`;
}

/** Trust exactly the station's own self-signed certificate, and only for the station's origin. */
export function trustCertificate(
  url: string,
  certificateFingerprint: string,
  station: { url: string; fingerprint256: string | null },
): boolean {
  return (
    station.fingerprint256 !== null &&
    isConsoleUrl(url, station.url) &&
    certificateFingerprint === electronFingerprint(station.fingerprint256)
  );
}

/** Camera (media, video only) for the console's origin; every other permission is refused. */
export function allowPermission(
  permission: string,
  requestingUrl: string,
  stationUrl: string,
  details?: { mediaTypes?: string[] },
): boolean {
  if (permission !== 'media' || !isConsoleUrl(requestingUrl, stationUrl)) return false;
  return (details?.mediaTypes ?? ['video']).every((t) => t === 'video');
}

/**
 * Requests the console's session may make: the station's origin only (and in-page data/blob
 * URLs). A stray remote URL or a file:// path is cancelled, so the desktop app never reaches
 * the network nor the disk through its renderer, whatever a page asks for.
 */
export function allowRequest(url: string, stationUrl: string): boolean {
  if (url.startsWith('data:') || url.startsWith('blob:')) return true;
  if (url.startsWith('devtools:')) return true; // DevTools only exist unpackaged (webPreferences.devTools)
  return isConsoleUrl(url, stationUrl);
}
