type JsonObject = Record<string, unknown>;

/** A self-contained, human-readable page of the OpenAPI document: no remote script or style. */
export function renderDocsPage(doc: JsonObject): string {
  const info = doc.info as { title: string; version: string; description: string };
  const paths = doc.paths as Record<string, Record<string, JsonObject>>;
  const sections = Object.entries(paths)
    .map(([path, methods]) =>
      Object.entries(methods)
        .map(([method, op]) => renderOperation(path, method, op))
        .join(''),
    )
    .join('');
  return `<!doctype html>
<html lang="es"><head><meta charset="utf-8"><title>${esc(info.title)}</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:980px;margin:2rem auto;padding:0 1rem;color:#1d2533}
h1{font-size:1.6rem}h2{font-size:1.1rem;margin:2rem 0 .3rem;font-family:ui-monospace,monospace}
.m{background:#1f6feb;color:#fff;border-radius:4px;padding:0 .4rem;margin-right:.4rem;font-size:.85rem}
table{border-collapse:collapse;width:100%;font-size:.9rem}td,th{border-bottom:1px solid #dde;padding:.25rem .4rem;text-align:left;vertical-align:top}
code{font-family:ui-monospace,monospace}.scope{color:#6a737d}details{margin:.5rem 0}pre{background:#f6f8fa;padding:.6rem;overflow:auto;font-size:.8rem}
</style></head><body>
<h1>${esc(info.title)} <small>v${esc(info.version)}</small></h1>
<p>${esc(info.description)}</p>
<p>Documento máquina: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1).</p>
${sections}
</body></html>`;
}

function renderOperation(path: string, method: string, op: JsonObject): string {
  const body = (op.requestBody as { content?: Record<string, { schema: JsonObject }> } | undefined)?.content?.['application/json']
    ?.schema;
  const ok = (op.responses as Record<string, { content?: Record<string, { schema: JsonObject }> }>)['200']?.content?.[
    'application/json'
  ]?.schema;
  const data = (ok?.properties as Record<string, JsonObject> | undefined)?.data;
  return `<section id="${esc(String(op.operationId))}">
<h2><span class="m">${method.toUpperCase()}</span>${esc(path)}</h2>
<p>${esc(String(op.summary ?? ''))} <span class="scope">${esc(String(op.description ?? ''))}</span></p>
${body ? `<h3>Solicitud</h3>${renderFields(body)}` : ''}
${data ? `<details><summary>Respuesta <code>data</code></summary>${renderFields(data)}</details>` : ''}
</section>`;
}

interface Row {
  name: string;
  type: string;
  required: boolean;
  rules: string;
  description: string;
}

function renderFields(schema: JsonObject): string {
  const rows: Row[] = [];
  collect(schema, '', true, rows);
  if (rows.length === 0) return '<p>Sin campos.</p>';
  return `<table><tr><th>Campo</th><th>Tipo</th><th>Obligatorio</th><th>Reglas</th><th>Descripción</th></tr>${rows
    .map(
      (r) =>
        `<tr><td><code>${esc(r.name)}</code></td><td>${esc(r.type)}</td><td>${r.required ? 'sí' : 'no'}</td><td>${esc(r.rules)}</td><td>${esc(r.description)}</td></tr>`,
    )
    .join('')}</table>`;
}

function collect(schema: JsonObject, prefix: string, required: boolean, rows: Row[]): void {
  const props = schema.properties as Record<string, JsonObject> | undefined;
  if (!props) return;
  const requiredList = new Set((schema.required as string[] | undefined) ?? []);
  for (const [key, prop] of Object.entries(props)) {
    const name = prefix ? `${prefix}.${key}` : key;
    const target = unwrap(prop);
    rows.push({
      name,
      type: typeOf(target),
      required: required && requiredList.has(key),
      rules: rulesOf(target, prop),
      description: String(prop.description ?? target.description ?? ''),
    });
    if (target.type === 'object') collect(target, name, required && requiredList.has(key), rows);
    const items = target.items as JsonObject | undefined;
    if (target.type === 'array' && items?.type === 'object') collect(items, `${name}[]`, false, rows);
  }
}

function unwrap(schema: JsonObject): JsonObject {
  const options = (schema.anyOf ?? schema.oneOf) as JsonObject[] | undefined;
  if (options) return options.find((o) => o.type !== 'null') ?? schema;
  return schema;
}

function typeOf(schema: JsonObject): string {
  if (schema.enum) return 'enum';
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (Array.isArray(schema.type)) return schema.type.join(' | ');
  if (schema.type === 'array') return `lista de ${typeOf((schema.items as JsonObject | undefined) ?? {})}`;
  return String(schema.type ?? 'cualquiera');
}

function rulesOf(schema: JsonObject, outer: JsonObject): string {
  const rules: string[] = [];
  if (schema.enum) rules.push(`uno de ${(schema.enum as unknown[]).join(', ')}`);
  if (schema.minimum !== undefined) rules.push(`>= ${String(schema.minimum)}`);
  if (schema.maximum !== undefined) rules.push(`<= ${String(schema.maximum)}`);
  if (schema.minLength !== undefined) rules.push(`long. >= ${String(schema.minLength)}`);
  if (schema.maxLength !== undefined) rules.push(`long. <= ${String(schema.maxLength)}`);
  const def = outer.default ?? schema.default;
  if (def !== undefined && typeof def !== 'object') rules.push(`por defecto ${JSON.stringify(def)}`);
  return rules.join('; ');
}

function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
