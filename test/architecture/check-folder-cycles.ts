/**
 * `npm run lint:cycles` (after dpdm's file cycles): fails naming every cycle between folders of src/
 * and workers/, with the imports that close it. See folder-graph.ts for what a folder is.
 */
import { folderCycles, folderEdges } from './folder-graph.ts';

const edges = folderEdges();
const cycles = folderCycles(edges);
for (const { path } of cycles) {
  console.error(`folder cycle: ${path.join(' -> ')}`);
  for (let i = 0; i + 1 < path.length; i++) {
    const edge = edges.find((e) => e.from === path[i] && e.to === path[i + 1])!;
    console.error(`  ${edge.file} imports ${edge.imports}`);
  }
}
if (cycles.length > 0) process.exitCode = 1;
else
  console.log(
    `no cycle between the ${new Set(edges.map((e) => e.from)).size} folders of src/ and workers/`,
  );
