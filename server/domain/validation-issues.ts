import type { z } from 'zod';

const TYPE_NAMES: Record<string, string> = {
  string: 'un texto',
  number: 'un número',
  int: 'un número entero',
  boolean: 'un booleano (true o false)',
  object: 'un objeto',
  array: 'una lista',
};

/** Spanish, field-naming descriptions of zod issues: "campo 'parametros.minIOD': ...". */
export function formatIssues(issues: readonly z.core.$ZodIssue[], input?: unknown): string {
  return issues
    .slice(0, 5)
    .map((issue) => formatIssue(issue, input))
    .join('; ');
}

function formatIssue(issue: z.core.$ZodIssue, input: unknown): string {
  const field = issue.path.length ? issue.path.map(String).join('.') : '';
  const subject = field ? `campo '${field}'` : 'el cuerpo';
  switch (issue.code) {
    case 'invalid_type': {
      const value = valueAt(input, issue.path);
      if (value === undefined && field) return `${subject}: es obligatorio`;
      return `${subject}: debe ser ${TYPE_NAMES[issue.expected] ?? issue.expected} (llegó ${describe(value)})`;
    }
    case 'too_small':
    case 'too_big': {
      const bound = issue.code === 'too_small' ? issue.minimum : issue.maximum;
      const cmp = issue.code === 'too_small' ? (issue.inclusive ? '>=' : '>') : issue.inclusive ? '<=' : '<';
      const value = valueAt(input, issue.path);
      if (issue.origin === 'string') {
        return `${subject}: la longitud debe ser ${cmp} ${String(bound)} caracteres (tiene ${typeof value === 'string' ? value.length : '?'})`;
      }
      if (issue.origin === 'array') return `${subject}: la cantidad de elementos debe ser ${cmp} ${String(bound)}`;
      return `${subject}: debe ser ${cmp} ${String(bound)} (llegó ${describe(value)})`;
    }
    case 'unrecognized_keys': {
      const where = field ? ` en '${field}'` : '';
      return `campo${issue.keys.length > 1 ? 's' : ''} no reconocido${issue.keys.length > 1 ? 's' : ''}${where}: ${issue.keys.map((k) => `'${k}'`).join(', ')}`;
    }
    case 'invalid_value':
      return `${subject}: debe ser uno de ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'not_multiple_of':
      return `${subject}: debe ser un número entero`;
    default:
      return `${subject}: ${issue.message}`;
  }
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let current = input;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

function describe(value: unknown): string {
  if (value === undefined) return 'nada';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'una lista';
  if (typeof value === 'string') return value.length > 24 ? `un texto de ${value.length} caracteres` : `"${value}"`;
  if (typeof value === 'object') return 'un objeto';
  return String(value);
}
