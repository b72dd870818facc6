import type { OperationHandlers } from '../operation-handler.js';
import { detectSpoof } from './detect-spoof.js';
import { enrollFace } from './enroll-face.js';
import { extractFace } from './extract-face.js';
import { faceContext, type FaceDeps } from './face-context.js';
import { identifyFace } from './identify-face.js';
import { verifyFace } from './verify-face.js';

export type { FaceMatchingPolicy } from './face-context.js';

/** The five face operations of the contract, on the engine, the gallery and the search index: one module each. */
export function faceOperations(deps: FaceDeps): OperationHandlers {
  const ctx = faceContext(deps);
  return {
    extractFace: extractFace(ctx),
    enroll: enrollFace(ctx),
    verify: verifyFace(ctx),
    identify: identifyFace(ctx),
    spoof: detectSpoof(ctx),
  };
}
