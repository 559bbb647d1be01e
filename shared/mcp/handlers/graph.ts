// The knowledge-graph tools: memory_relate (a typed relation between two facts), read_graph (the
// neighbourhood of a fact or an entity), open_memories (facts with their relations), and
// memory_consolidate (one consolidation run).
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { graphJson } from '../../json/shapes.ts';
import { EngramError, ErrorKind } from '../../errors.ts';
import type { GraphEdge } from '../../model.ts';
import * as check from '../../validate.ts';
import { schemaArgs, type Args } from '../args.ts';
import type { McpBackend } from '../backend.ts';
import { success } from '../result.ts';

export async function memoryRelate(args: Args, backend: McpBackend): Promise<CallToolResult> {
  const a = schemaArgs('memory_relate', args);
  const r = await backend.relate(a.agent_id, a.from_id, a.type, a.to_id, a.remove);
  const verb = r.changed ? (a.remove ? 'Removed' : 'Added') : 'Nothing changed:';
  return success({ agent_id: a.agent_id, changed: r.changed, fact: r.fact }, `${verb} ${a.from_id} ${a.type} ${a.to_id}.`);
}

const edgeLine = (e: GraphEdge) => `${e.from} --${e.type}${e.weight !== 1 ? ` x${e.weight}` : ''}--> ${e.to}`;

export async function readGraph(args: Args, backend: McpBackend): Promise<CallToolResult> {
  const a = schemaArgs('read_graph', args);
  // Checked here in the daemon's words: over stdio the library would send neither as an empty entity.
  check.graphCentre(a.fact_id, a.entity);
  const view = await backend.readGraph(a.agent_id, a.fact_id !== undefined ? { factId: a.fact_id } : { entity: a.entity! }, a.limit);
  const nodes = view.nodes.map((n) => `${n.id}: ${n.kind === 'entity' ? `entity ${n.label}${n.type ? ` (${n.type})` : ''}` : `${JSON.stringify(n.label)}${n.live ? '' : ' [retired]'}`}`);
  return success({ agent_id: a.agent_id, ...graphJson(view) }, [`${view.nodes.length} nodes, ${view.edges.length} edges.`, ...nodes, ...view.edges.map(edgeLine)].join('\n'));
}

export async function openMemories(args: Args, backend: McpBackend): Promise<CallToolResult> {
  const a = schemaArgs('open_memories', args);
  const memories = [];
  const notFound: string[] = [];
  const edges = new Map<string, GraphEdge>();
  for (const id of [...new Set(a.memory_ids)]) {
    try {
      memories.push(await backend.get(a.agent_id, id));
      for (const e of (await backend.readGraph(a.agent_id, { factId: id })).edges) edges.set(`${e.from}\u0000${e.to}\u0000${e.type}`, e);
    } catch (error) {
      if (!(error instanceof EngramError) || error.kind !== ErrorKind.NotFound) throw error;
      notFound.push(id);
    }
  }
  const lines = [...memories.map((m) => `${m.id}: ${m.text}`), ...[...edges.values()].map(edgeLine), ...(notFound.length ? [`Not found: ${notFound.join(', ')}`] : [])];
  return success({ agent_id: a.agent_id, count: memories.length, memories, not_found: notFound, edges: [...edges.values()] }, lines.join('\n') || 'No memories found.');
}

export async function memoryConsolidate(args: Args, backend: McpBackend): Promise<CallToolResult> {
  const a = schemaArgs('memory_consolidate', args);
  const run = await backend.consolidateRun(a.agent_id, a.dry_run);
  const lines = [run.message, ...(run.text ? [`Summary: ${run.text}`] : []), ...run.failures.map((f) => `Kept ${f.fact_id}: ${f.error}`)];
  return success({ agent_id: a.agent_id, ...run }, lines.join('\n'));
}
