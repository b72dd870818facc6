// A walker of our own over the TypeScript imports (ts.preProcessFile), as no dependency-graph tool is
// installed: it finds every cycle of modules, type-only imports included, and of server/'s folders.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = path.dirname(path.dirname(new URL(import.meta.url).pathname));
const TREES = ['common', 'server', 'main', 'bench', 'renderer/src'];

function sources(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(rel);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [rel] : [];
  });
}

/** Each module's relative imports, resolved to the source files they name (`./x.js` is `./x.ts`). */
function importGraph(files: readonly string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(path.join(root, file), 'utf8'), true, true);
    const targets = importedFiles
      .map((i) => i.fileName)
      .filter((name) => name.startsWith('.'))
      .map((name) => path.join(path.dirname(file), name).replace(/\.js$/, ''))
      .flatMap((base) => ['.ts', '.tsx'].map((ext) => base + ext).filter((f) => existsSync(path.join(root, f))));
    graph.set(file, targets);
  }
  return graph;
}

/** The strongly connected components of more than one node, or of one that imports itself (Tarjan). */
function cycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || graph.get(v)?.includes(v)) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('imports', () => {
  const graph = importGraph(TREES.flatMap(sources));

  it('the walker sees the imports', () => {
    expect(graph.size).toBeGreaterThan(300);
    expect(graph.get('server/station/index.ts')).toContain('server/station/start-station.ts');
    expect(
      cycles(
        new Map([
          ['a', ['b']],
          ['b', ['c']],
          ['c', ['a']],
          ['d', ['a']],
        ]),
      ),
    ).toEqual([['a', 'b', 'c']]);
  });

  it('form no cycle of modules', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it("form no cycle of server/'s folders", () => {
    const folderOf = (file: string) => (file.startsWith('server/') ? file.split('/').slice(0, 2).join('/') : null);
    const folders = new Map<string, Set<string>>();
    for (const [file, targets] of graph) {
      const from = folderOf(file);
      if (!from || file.endsWith('.test.ts')) continue;
      const edges = folders.get(from) ?? new Set<string>();
      for (const to of targets.map(folderOf)) if (to && to !== from) edges.add(to);
      folders.set(from, edges);
    }
    expect(cycles(new Map([...folders].map(([f, e]) => [f, [...e]])))).toEqual([]);
  });
});
