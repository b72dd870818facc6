/**
 * What the sealed values of a gallery are bound to, shared by every backend so a sample sealed
 * by one store opens in the other (and a value moved to another person or field does not).
 */
export const KEY_CHECK = 'data-key-check';

export function sampleAad(idPersona: string, field: 'embedding' | 'thumbnail'): string {
  return `face_samples/${field}/${idPersona}`;
}
