// Markdown notes of facts (an Obsidian vault): one note per fact, `<id>.md`, whose YAML frontmatter
// quotes every value, whose body is the fact's text, with a [[wikilink]] per entity; plus an
// index note linking every fact.
import type { Fact } from '../model.ts';

const iso = (ms: number | undefined) => (ms ? new Date(ms).toISOString() : '');

/** A YAML double-quoted scalar. JSON escapes are YAML escapes; on top of them, the characters
 *  YAML does not allow unescaped (DEL, C1 controls, BOM, U+FFFE/F, lone surrogates) and the
 *  Unicode line separators are escaped too, so any string round-trips. */
export function yamlQuote(value: string): string {
  return JSON.stringify(value).replace(/[\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]|[\ud800-\udfff]/gu, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

const yamlList = (values: readonly string[]) => `[${values.map(yamlQuote).join(', ')}]`;

/** A wikilink target: Obsidian reserves [ ] | # ^ in link targets and \ / : in file names. */
export function wikilinkTarget(name: string): string {
  return name.replace(/[[\]|#^\\/:*?"<>\n\r\t]+/g, ' ').replace(/\s+/g, ' ').trim();
}

export function wikilinks(names: readonly string[]): string[] {
  const targets = names.map(wikilinkTarget).filter((t) => t.length > 0);
  return [...new Set(targets)].map((t) => `[[${t}]]`);
}

function frontmatter(entries: [string, string | readonly string[]][]): string {
  const lines = entries.map(([key, value]) => `${key}: ${typeof value === 'string' ? yamlQuote(value) : yamlList(value)}`);
  return `---\n${lines.join('\n')}\n---\n`;
}

export function factNote(f: Fact): string {
  const head = frontmatter([
    ['id', f.id],
    ['agent_id', f.agentId],
    ['kind', f.kind],
    ['created_at', iso(f.createdAt)],
    ['occurred_at', iso(f.occurredAt)],
    ['confidence', f.confidence ?? ''],
    ['pinned', String(f.pinned)],
    ['superseded_by', f.supersededBy ?? ''],
    ['tags', f.tags],
    ['entities', f.entities],
    ['source', f.source ?? ''],
  ]);
  const links = wikilinks(f.entities);
  return `${head}\n${f.text}\n${links.length ? `\nEntities: ${links.join(' ')}\n` : ''}`;
}

/** The agent_id a note's frontmatter names (an index note or a fact note), if it has one. */
export function noteAgentId(note: string): string | undefined {
  const head = /^---\n([\s\S]*?)\n---\n/.exec(note)?.[1];
  const quoted = head && /^agent_id: (".*")$/m.exec(head)?.[1];
  if (!quoted) return undefined;
  try {
    return JSON.parse(quoted) as string;
  } catch {
    return undefined;
  }
}

export interface IndexEntry {
  id: string;
  text: string;
  retired: boolean;
  entities: string[];
}

export function indexNote(agentId: string, entries: readonly IndexEntry[], exportedAt: number): string {
  const head = frontmatter([
    ['agent_id', agentId],
    ['exported_at', new Date(exportedAt).toISOString()],
    ['fact_count', String(entries.length)],
  ]);
  const oneLine = (text: string) => {
    const flat = text.replace(/\s+/g, ' ').trim();
    return flat.length > 100 ? `${flat.slice(0, 99)}…` : flat;
  };
  const facts = entries.map((e) => `- [[${e.id}]] ${oneLine(e.text)}${e.retired ? ' (retired)' : ''}`);
  const entities = wikilinks(entries.flatMap((e) => e.entities)).sort();
  return [
    head,
    `# Memories of ${agentId}`,
    '',
    ...(facts.length ? facts : ['No facts.']),
    ...(entities.length ? ['', '## Entities', '', ...entities.map((l) => `- ${l}`)] : []),
    '',
  ].join('\n');
}
