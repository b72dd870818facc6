/** One scope per operation family; a token carries any subset of them. */
export const SCOPES = ['enroll', 'verify', 'identify', 'extract', 'spoof', 'document', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
