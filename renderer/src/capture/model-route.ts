/**
 * Where the guidance models come from, and which backend runs them: the station's public `/modelos/` route (Human's face
 * models in `human/`, TensorFlow.js WebAssembly in `tfjs-wasm/`). A front end served from
 * another origin on the LAN points this at the station before mounting a component.
 */
let modelBaseUrl: string | null = null;
let backendOverride: 'webgl' | 'wasm' | null = null;

export interface CaptureSettings {
  /** Absolute or page-relative URL of the station's `/modelos/` folder, ending in `/`. */
  modelBaseUrl: string;
  /** Force a TensorFlow.js backend; by default WebGL when available, else WebAssembly. */
  backend: 'webgl' | 'wasm' | null;
}

export function configureCapture(settings: Partial<CaptureSettings>): void {
  if (settings.modelBaseUrl !== undefined) {
    modelBaseUrl = settings.modelBaseUrl.endsWith('/') ? settings.modelBaseUrl : `${settings.modelBaseUrl}/`;
  }
  if (settings.backend !== undefined) backendOverride = settings.backend;
}

export function forcedBackend(): 'webgl' | 'wasm' | null {
  return backendOverride;
}

export function modelBase(): string {
  return new URL(modelBaseUrl ?? '/modelos/', window.location.href).href;
}
