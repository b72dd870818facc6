// The operations' entry point: the use cases the HTTP layer serves, and the decisions evaluated on
// their own by the benchmarks (frame selection, presentation attacks, face properties).
export { adminOperations, type StationInfo } from './admin-operations.js';
export { documentOperations } from './document/document-operations.js';
export { faceOperations, type FaceMatchingPolicy } from './face/face-operations.js';
export { logit, smileFeatures } from './face/attribute-scales.js';
export { emotionOf, expressionOf, facialHairPrior, GENDER_MIN_PROBABILITY, traitsOf } from './face/face-properties.js';
export { stillScore, type StillModel } from './face/still-judgement.js';
export { selectFrames, type UsableFrame } from './face/frame-selection.js';
export { assessPresentation, spoofDecision, type SpoofStatus } from './face/presentation-attack.js';
export { galleryOperations } from './gallery-operations.js';
export type { OperationContext, OperationHandler, OperationHandlers, OperationResult } from './operation-handler.js';
