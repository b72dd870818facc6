/**
 * Capture components: live face and document capture with in-browser guidance,
 * embeddable by any web front end on the station's LAN (docs/capture-components.md).
 */
export { FaceCapture, type CapturedFace, type FaceCaptureProps } from './FaceCapture.js';
export { DocumentCapture, type CapturedDocument, type DocumentCaptureProps } from './DocumentCapture.js';
export { configureCapture, type CaptureSettings } from './model-route.js';
export type { Locale } from './messages.js';
export type { FaceGuidanceState } from './face-guidance.js';
export type { DocumentGuidanceState } from './document-guidance.js';
