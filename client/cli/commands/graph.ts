// The knowledge graph from the command line: relate two facts, attach an entity to a fact, and
// read the neighbourhood of a fact or an entity.
import type { Command } from 'commander';
import { RELATION_TYPES, type RelationType } from '../../../shared/model.ts';
import { factJson, graphJson, relatedJson } from '../../../shared/json/shapes.ts';
import { checkedFlag, out, positiveInt, printJson, usage, withClient, type Cli } from '../context.ts';
import * as check from '../../../shared/validate.ts';
import { counted } from '../../../shared/counted.ts';

export function registerGraphCommands({ program, globals }: Cli): void {
  program
    .command('relate')
    .description(`add a typed relation between two live facts (${RELATION_TYPES.join(', ')}); --remove takes it away`)
    .argument('<agent>', 'agent id (namespace)')
    .argument('<from-id>', 'the fact the relation starts from')
    .argument('<type>', RELATION_TYPES.join(' | '))
    .argument('<to-id>', 'the fact it points at')
    .option('--remove', 'remove the relation instead')
    .option('--json', 'print JSON')
    .action(async (agent: string, fromId: string, type: string, toId: string, o: { remove?: boolean }, cmd: Command) => {
      const opts = globals(cmd);
      if (!(RELATION_TYPES as readonly string[]).includes(type)) usage(`type must be one of ${RELATION_TYPES.join(', ')}, got "${type}"`);
      const r = await withClient(opts, (c) => c.relate(agent, fromId, type as RelationType, toId, { remove: o.remove === true }));
      if (opts.json) return printJson(relatedJson(r));
      out(`${r.changed ? (o.remove ? 'removed' : 'related') : 'unchanged'}: ${fromId} ${type} ${toId}`);
    });

  program
    .command('link')
    .description('attach an entity to a live fact (a graph node the fact mentions)')
    .argument('<agent>', 'agent id (namespace)')
    .argument('<fact-id>', 'the fact')
    .argument('<entity>', 'the entity label')
    .option('--type <type>', 'what kind of thing it is (person, place, organization, topic, ...)')
    .option('--json', 'print JSON')
    .action(async (agent: string, factId: string, entity: string, o: { type?: string }, cmd: Command) => {
      const opts = globals(cmd);
      const fact = await withClient(opts, (c) => c.linkEntity(agent, factId, entity, o.type ? { type: o.type } : {}));
      if (opts.json) return printJson({ fact: factJson(fact) });
      // A token that may not read the fact is answered without its entities: say what was linked.
      out(`${factId} mentions ${fact.entities.length ? fact.entities.join(', ') : entity}`);
    });

  program
    .command('graph')
    .description('the knowledge graph around a fact (its entities, relations and lineage) or an entity (the facts naming it, the entities named with it)')
    .argument('<agent>', 'agent id (namespace)')
    .option('--fact <id>', 'the fact', (value: string) => checkedFlag('--fact', () => check.factId(value, '--fact')))
    .option('--entity <label>', 'the entity')
    .option('--limit <n>', 'facts listed around an entity (default 25)', positiveInt('--limit'))
    .option('--json', 'print JSON')
    .action(async (agent: string, o: { fact?: string; entity?: string; limit?: number }, cmd: Command) => {
      const opts = globals(cmd);
      if ((o.fact === undefined) === (o.entity === undefined)) usage('name exactly one of --fact and --entity');
      const around = o.fact !== undefined ? { factId: o.fact } : { entity: o.entity! };
      const view = await withClient(opts, (c) => c.readGraph(agent, around, o.limit ? { limit: o.limit } : {}));
      if (opts.json) return printJson(graphJson(view));
      const label = new Map(view.nodes.map((n) => [n.id, n.kind === 'entity' ? `(${n.label}${n.type ? `: ${n.type}` : ''})` : `${n.id} ${JSON.stringify(n.label)}${n.live ? '' : ' [retired]'}`]));
      for (const e of view.edges) out(`${label.get(e.from)} --${e.type}${e.weight !== 1 ? ` x${e.weight}` : ''}--> ${label.get(e.to)}`);
      out(`${counted(view.nodes.length, 'node')}, ${counted(view.edges.length, 'edge')}`);
    });
}
