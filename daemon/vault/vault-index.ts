// The vault's notes, indexed for keyword search and kept current: every markdown file under the
// vault is read at start-up, and a watch on the directory re-reads a note when it is written,
// renamed or removed — by Engram's promotion or by a person editing the vault. Dot-directories
// (.obsidian, .trash) are skipped. The vault is never written here.
import { readdirSync, readFileSync, statSync, watch, type FSWatcher } from 'node:fs';
import { makeDirectory } from '../../shared/make-directory.ts';
import { join, relative, sep } from 'node:path';
import { KeywordIndex } from '../index/keyword.ts';
import { termFrequencies, terms } from '../index/tokenizer.ts';
import type { Log } from '../log.ts';
import { parseNote, type VaultNote } from './note.ts';

export interface NoteHit {
  note: VaultNote;
  score: number;
}

const isNotePath = (rel: string): boolean => rel.endsWith('.md') && !rel.split(sep).some((part) => part.startsWith('.'));

export class VaultIndex {
  private readonly keyword = new KeywordIndex();
  private readonly docs = new Map<number, VaultNote>();
  private readonly docOfPath = new Map<string, number>();
  private nextDoc = 0;
  private watcher: FSWatcher | null = null;
  private readonly pending = new Map<string, NodeJS.Timeout>();

  constructor(
    readonly dir: string,
    private readonly log: Log,
  ) {}

  /** Reads every note, then watches the directory. */
  open(): void {
    makeDirectory(this.dir);
    for (const rel of this.notePaths(this.dir)) this.refresh(rel);
    try {
      this.watcher = watch(this.dir, { recursive: true }, (_event, name) => {
        if (name) this.soon(String(name));
      });
      this.watcher.on('error', (error) => this.log.warn(`vault watch stopped (${error.message}); notes changed from now on are seen after a restart`));
    } catch (error) {
      this.log.warn(`cannot watch the vault ${this.dir}: ${(error as Error).message}; notes changed on disk are seen after a restart`);
    }
  }

  close(): void {
    this.watcher?.close();
    for (const timer of this.pending.values()) clearTimeout(timer);
    this.pending.clear();
  }

  get size(): number {
    return this.docs.size;
  }

  /** Promotion wrote a note: index it now rather than when the watch reports it. */
  written(absolutePath: string): void {
    this.refresh(relative(this.dir, absolutePath));
  }

  /** Notes of the namespace (its promoted notes and every note written by hand), best first. */
  search(query: string, agentId: string, limit: number): NoteHit[] {
    const eligible = (doc: number) => {
      const note = this.docs.get(doc);
      return note !== undefined && (note.agentId === '' || note.agentId === agentId);
    };
    return this.keyword.search(terms(query), { eligible, limit }).map((hit) => ({ note: this.docs.get(hit.doc)!, score: hit.score }));
  }

  /** Several events for one file in a burst (write, then rename) are read once. */
  private soon(rel: string): void {
    clearTimeout(this.pending.get(rel));
    this.pending.set(
      rel,
      setTimeout(() => {
        this.pending.delete(rel);
        this.refresh(rel);
      }, 50).unref(),
    );
  }

  /** Reads the note at `rel` again, or drops it when it is gone (or was never a note). */
  private refresh(rel: string): void {
    const old = this.docOfPath.get(rel);
    if (old !== undefined) {
      this.keyword.remove(old);
      this.docs.delete(old);
      this.docOfPath.delete(rel);
    }
    if (!isNotePath(rel)) return;
    let content: string;
    try {
      content = readFileSync(join(this.dir, rel), 'utf8');
    } catch {
      return; // removed, or renamed away
    }
    const note = parseNote(rel, content);
    const { tf, length } = termFrequencies(`${note.title}\n${note.body}`);
    const doc = this.nextDoc++;
    this.keyword.add(doc, tf, length);
    this.docs.set(doc, note);
    this.docOfPath.set(rel, doc);
  }

  private notePaths(dir: string): string[] {
    const out: string[] = [];
    let names: string[];
    try {
      names = readdirSync(dir, { recursive: true }) as string[];
    } catch {
      return out; // no vault yet: promotion makes it
    }
    for (const name of names) if (isNotePath(name) && statSync(join(dir, name)).isFile()) out.push(name);
    return out;
  }
}
