/**
 * The recognition model whose embeddings the gallery stores. Samples record it: embeddings of
 * another model are not comparable, so a model change re-enrolls or refuses those samples.
 */
export const FACE_MODEL_ID = 'faceapi-resnet128-dlibalign@1';
export const EMBEDDING_DIM = 128;
