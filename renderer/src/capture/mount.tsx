import { createRoot } from 'react-dom/client';
import { DocumentCapture, type DocumentCaptureProps } from './DocumentCapture.js';
import { FaceCapture, type FaceCaptureProps } from './FaceCapture.js';

/**
 * For front ends that do not use React: mount a component in an element, get back a function
 * that unmounts it (and stops the camera).
 */
export function mountFaceCapture(element: Element, props: FaceCaptureProps): () => void {
  const root = createRoot(element);
  root.render(<FaceCapture {...props} />);
  return () => root.unmount();
}

export function mountDocumentCapture(element: Element, props: DocumentCaptureProps): () => void {
  const root = createRoot(element);
  root.render(<DocumentCapture {...props} />);
  return () => root.unmount();
}
