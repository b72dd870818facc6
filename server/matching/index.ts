// Matching's entry point: similarity, the calibration of scores, the gallery's centring.
export {
  confidenceOf,
  falseAcceptProbability,
  identificationThreshold,
  type ImpostorModel,
  thresholdForFmr,
} from './calibration.js';
export { centredImpostors, CENTRING_SHARE, centringShift, centringWeight, galleryCentre } from './gallery-centre.js';
export { addInto, cosine, dot, meanDirection, normalize } from './similarity.js';
