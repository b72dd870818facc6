/**
 * CUIL/CUIT check digit (AFIP): weights 5,4,3,2,7,6,5,4,3,2 over prefix + 8-digit DNI, then
 * 11 - (sum mod 11), with 11 -> 0. A result of 10 has no digit: AFIP then issues prefix 23 instead,
 * whose ordinary computation gives the 9 (from 20) or 4 (from 27) it is known for, so computing
 * with the printed prefix covers that case.
 */
const WEIGHTS = [5, 4, 3, 2, 7, 6, 5, 4, 3, 2] as const;

/** Prefixes issued to people (20 male, 27 female, 23/24 when the usual prefix gives 10 or duplicates). */
export const PERSON_CUIL_PREFIXES = ['20', '23', '24', '27'] as const;

/** The check digit for a 2-digit prefix and a DNI (7-8 digits), or null when none exists (result 10). */
export function cuilCheckDigit(prefix: string, dni: string): number | null {
  const body = prefix + dni.padStart(8, '0');
  if (!/^\d{10}$/.test(body)) return null;
  let sum = 0;
  for (let i = 0; i < 10; i++) sum += Number(body.charAt(i)) * (WEIGHTS[i] ?? 0);
  const r = 11 - (sum % 11);
  if (r === 11) return 0;
  return r === 10 ? null : r;
}

/** `20-12345678-3` */
export function formatCuil(prefix: string, dni: string, digit: number | string): string {
  return `${prefix}-${dni.padStart(8, '0')}-${digit}`;
}
