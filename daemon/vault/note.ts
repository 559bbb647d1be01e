// A markdown note of the vault as unified search reads it: the YAML frontmatter's id, agent_id
// and tags when it has them (notes Engram promoted do; notes a person wrote may not), a title
// (its first heading, else its file name) and its body.
import { basename } from 'node:path';

export interface VaultNote {
  /** Relative to the vault. */
  path: string;
  /** The fact id of a promoted note; "" for a note written by hand. */
  factId: string;
  /** The namespace a promoted note belongs to; "" for a note of every namespace. */
  agentId: string;
  tags: string[];
  title: string;
  body: string;
}

/** A frontmatter value: JSON-quoted strings and lists as Engram writes them, else the raw text. */
function value(raw: string): unknown {
  const text = raw.trim();
  if (text.startsWith('"') || text.startsWith('[')) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

export function parseNote(path: string, content: string): VaultNote {
  let body = content;
  const fields: Record<string, unknown> = {};
  const head = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/u.exec(content);
  if (head) {
    body = content.slice(head[0].length);
    for (const line of head[1]!.split(/\r?\n/u)) {
      const m = /^([A-Za-z_][\w-]*):\s*(.*)$/u.exec(line);
      if (m) fields[m[1]!] = value(m[2]!);
    }
  }
  const heading = /^#\s+(.+)$/mu.exec(body)?.[1]?.trim();
  // A heading that opens the note is its title, not its text: a preview shows "Title: text",
  // not "Title: # Title text".
  const opening = /^\s*#\s+.+(?:\r?\n|$)/u.exec(body);
  if (opening) body = body.slice(opening[0].length);
  const str = (v: unknown) => (typeof v === 'string' ? v : '');
  return {
    path,
    factId: str(fields.id),
    agentId: str(fields.agent_id),
    tags: Array.isArray(fields.tags) ? fields.tags.filter((t): t is string => typeof t === 'string') : [],
    title: heading ?? basename(path, '.md'),
    body: body.trim(),
  };
}
