import { configureCapture } from './model-route.js';

/**
 * Entry of the embeddable build (`/embed/enrolla-capture.js` on every station): the capture
 * components with React inside, for any web front end on the LAN. Models default to the
 * `/modelos/` route of the station the module was loaded from.
 */
configureCapture({ modelBaseUrl: new URL('../modelos/', import.meta.url).href });

export { mountDocumentCapture, mountFaceCapture } from './mount.js';
export { configureCapture } from './model-route.js';
