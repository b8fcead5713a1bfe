/**
 * The folder graph of src/ and workers/: which folder imports which, read by the TypeScript compiler
 * (ts.preProcessFile finds every import, export-from and import(); ts.resolveModuleName resolves it
 * as tsc does). dpdm sees cycles between files only; two folders can import each other through
 * different files with no file cycle, and that is the cycle the layers forbid (issue 31).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export const root = path.resolve(import.meta.dirname, '../..');

/**
 * The unit of the graph. A top folder of src/ (src/http, src/actors, ...), except inside src/domain,
 * whose parts are layers of their own (src/domain/metrics, src/domain/rules, src/domain/silences);
 * each file directly in src/ is a node of its own (log.ts sits at the bottom, service.ts at the top);
 * workers/ and its subfolders are one.
 */
export const folderOf = (file: string): string | undefined => {
  const parts = path.relative(root, file).split(path.sep);
  if (parts[0] === 'workers') return 'workers';
  if (parts[0] !== 'src') return undefined;
  if (parts.length === 2) return parts.join('/');
  if (parts[1] === 'domain' && parts.length > 3) return `src/domain/${parts[2]}`;
  return `src/${parts[1]}`;
};

/** The TypeScript files under `dir` (a folder of the repository), declarations left out. */
export const sourceFiles = (dir: string): string[] =>
  readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.tsx?$/.test(f) && !f.endsWith('.d.ts'))
    .map((f) => path.join(root, dir, f));

/** One import that crosses folders: the file, the file it imports, and their folders. */
export interface FolderEdge {
  from: string;
  to: string;
  file: string;
  imports: string;
}

export const folderEdges = (
  dirs: readonly string[] = ['src', 'workers'],
  unit: (file: string) => string | undefined = folderOf,
): FolderEdge[] => {
  const options: ts.CompilerOptions = {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    allowImportingTsExtensions: true,
  };
  const edges: FolderEdge[] = [];
  for (const file of dirs.flatMap(sourceFiles)) {
    const from = unit(file);
    if (from === undefined) continue;
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    for (const { fileName } of importedFiles) {
      const resolved = ts.resolveModuleName(fileName, file, options, ts.sys).resolvedModule;
      if (resolved === undefined || resolved.isExternalLibraryImport === true) continue;
      const to = unit(resolved.resolvedFileName);
      if (to === undefined || to === from) continue;
      edges.push({
        from,
        to,
        file: path.relative(root, file),
        imports: path.relative(root, resolved.resolvedFileName),
      });
    }
  }
  return edges;
};

/** Folders that import each other, directly or through others: a path around, and every member. */
export interface FolderCycle {
  /** `a -> b -> ... -> a`, a shortest way around through the component. */
  path: string[];
  members: string[];
}

/**
 * The cycles of a graph, one per strongly connected component of more than one folder (Tarjan), so a
 * failure names the folders to untangle.
 */
export const folderCycles = (edges: readonly Pick<FolderEdge, 'from' | 'to'>[]): FolderCycle[] => {
  const next = new Map<string, Set<string>>();
  for (const { from, to } of edges) {
    next.set(from, (next.get(from) ?? new Set()).add(to));
    if (!next.has(to)) next.set(to, new Set());
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v)!) {
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
      if (component.length > 1) components.push(component);
    }
  };
  for (const v of [...next.keys()].sort()) if (!index.has(v)) visit(v);
  return components.map((members) => ({
    path: cycleThrough(members.sort(), next),
    members,
  }));
};

/** A shortest path from the component's first folder back to itself, inside the component. */
const cycleThrough = (component: string[], next: Map<string, Set<string>>): string[] => {
  const start = component[0]!;
  const inside = new Set(component);
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const w of [...next.get(v)!].sort()) {
      if (!inside.has(w)) continue;
      if (w === start) {
        const cycle = [start];
        for (let u: string | undefined = v; u !== start; u = cameFrom.get(u!)) cycle.unshift(u!);
        cycle.unshift(start);
        return cycle;
      }
      if (!cameFrom.has(w)) {
        cameFrom.set(w, v);
        queue.push(w);
      }
    }
  }
  return component;
};
