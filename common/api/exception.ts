/**
 * The statuses that are processing exceptions (exceptionField): the input could not be brought to
 * the point where the operation answers its question. Every other status is an answer.
 */
const EXCEPTION_STATUSES: ReadonlySet<string> = new Set([
  'BAD_TEMPLATE',
  'FACE_NOT_DETECTED',
  'TEMPLATE_MULTIPLE_FACES',
  'INTRATEMPLATE_FACE_MISMATCH',
  'WITHOUT_IMAGES',
  'IMAGE_WITHOUT_FACE',
  'EXCEPTION',
  'NEITHER_MRZ_NOR_PDF417_DETECTED',
  'FRONT_FACE_NOT_FOUND',
]);

export const isException = (status: string | undefined): boolean => status !== undefined && EXCEPTION_STATUSES.has(status);
