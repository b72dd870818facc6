/**
 * The operator's token: given by the desktop shell's preload bridge when the console runs in
 * Electron, otherwise typed by the operator and kept only in this tab's session storage.
 */
const KEY = 'enrolla.token';

interface Bridge {
  baseUrl: string;
  token: string;
}

function bridgeToken(): string | null {
  const bridge = (window as unknown as { enrolla?: Bridge }).enrolla;
  return bridge?.token ? bridge.token : null;
}

export function loadToken(): string | null {
  return bridgeToken() ?? sessionStorage.getItem(KEY);
}

export function saveToken(token: string): void {
  sessionStorage.setItem(KEY, token);
}

export function clearToken(): void {
  sessionStorage.removeItem(KEY);
}
