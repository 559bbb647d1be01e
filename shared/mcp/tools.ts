// The MCP tool set of Engram: names, titles, descriptions, annotations and schemas, written once
// and served by both transports (`engram mcp` over stdio, the daemon over streamable HTTP).
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { jsonSchema } from '../schemas/json-schema.ts';
import { INPUT_TYPES, type ToolName } from './input-schemas.ts';
import { OUTPUT_TYPES } from './output-schemas.ts';

export type { ToolName } from './input-schemas.ts';

// Annotations are hints hosts use to decide whether a call needs the user's approval. The MCP
// defaults assume the worst (destructive, not idempotent, open world), and an unattended agent
// whose plain lookups or adds wait for approval stops making them — so every hint is explicit.
// Everything works on the local store: openWorldHint is false throughout.
const readOnly = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
/** A write that only adds: a new fact, alias or checkpoint per call. checkpoint_save also drops
 *  checkpoints beyond the retained count, but none a tool can still read: resume returns the newest. */
const additive = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };
/** memory_reflect can retire facts (update, forget): they stop being recalled. */
const destructive = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false };
/** Retiring or erasing one named fact: doing it twice changes nothing more. */
const destructiveOnce = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false };

interface ToolText {
  title: string;
  description: string;
  annotations: Tool['annotations'];
}

const TEXT: Record<ToolName, ToolText> = {
  memory_search: {
    title: 'Search memory',
    description:
      'Search an agent\'s long-term memory and return the most relevant stored facts, best first (hybrid ranking: keyword + semantic + recency, fused by reciprocal rank). Call it before answering anything that may depend on earlier sessions, user preferences or project facts; search agent_id "__shared__" too for facts all agents share. Returns fact texts with a count and how many of them matched the query (the rest only fill top_k), or a "No memories found" notice. With explain: true, each fact comes as a receipt (ranks, scores, fact_id, confidence). A weak-match note names nearby stored vocabulary: reformulate once, and record lasting synonyms with memory_alias. To store facts use memory_add; to correct, retire or pin them use memory_reflect.',
    annotations: { title: 'Search memory', ...readOnly },
  },
  memory_search_batch: {
    title: 'Search memory with several queries at once',
    description:
      'Answer several questions against one agent\'s memory in one call; the queries run concurrently under one ranking policy. Use it whenever you hold more than one open question (memory_search for exactly one). Returns `merged`, a best-first list in which a fact that answers several queries appears once, and `per_query` with each query\'s own facts; a failing query reports its error in its own entry while the others still return.',
    annotations: { title: 'Search memory with several queries at once', ...readOnly },
  },
  memory_add: {
    title: 'Store a durable fact',
    description:
      'Store one durable fact in an agent\'s memory so later sessions can recall it. Call it as soon as you learn a decision, preference, convention, correction or hard-won gotcha — one atomic, self-contained sentence per call, never transcripts or secrets. Returns the fact_id; a fact already remembered word for word is not stored twice (duplicate: true, its fact_id). To replace or retire an existing fact use memory_reflect.',
    annotations: { title: 'Store a durable fact', ...additive },
  },
  memory_add_batch: {
    title: 'Store several durable facts',
    description:
      'Store several durable facts in an agent\'s memory in one call (up to 100), e.g. what you learned over a session. Each fact is one atomic, self-contained sentence, as for memory_add, and is stored on its own: one already remembered word for word is not stored twice, one refused does not stop the others. Returns a fact_id (or an error) per fact, in order, and the counts.',
    annotations: { title: 'Store several durable facts', ...additive },
  },
  memory_alias: {
    title: 'Teach memory a synonym',
    description:
      'Declare that a term means the same as other words in an agent\'s memory, so later searches using either side reach the same facts. Use it when a search missed because your wording differs from the stored wording (the weak-match note suggests candidates). Aliases are never returned as facts.',
    annotations: { title: 'Teach memory a synonym', ...additive },
  },
  checkpoint_save: {
    title: 'Save a session checkpoint',
    description:
      'Save an agent\'s working state (a JSON object, as a string) so a later session can continue with checkpoint_resume. Use it before stopping mid-task or before a risky step. Each save is a new checkpoint; resume returns the newest. Returns the checkpoint id and its creation time (RFC 3339).',
    annotations: { title: 'Save a session checkpoint', ...additive },
  },
  checkpoint_resume: {
    title: 'Load the latest checkpoint',
    description:
      'Read an agent\'s most recent checkpoint without changing anything: its id, creation time (RFC 3339), saved state and, when the state had a messages list, its length. Call it at the start of a session to resume interrupted work. With no checkpoint: on_missing "error" (default) returns a tool error, on_missing "empty" a successful {"found": false, "agent_id"} result.',
    annotations: { title: 'Load the latest checkpoint', ...readOnly },
  },
  memory_reflect: {
    title: 'Curate memory',
    description:
      'Curate an agent\'s memory: add a fact, update (replace) a stale or wrong one, forget (retire) one, pin or unpin one, or link an entity to one. Name the existing fact in target by fact_id (from explain receipts) or by its exact text. Supply agent_id (or the deprecated agent): at least one is required, each supplied one must be a non-empty, non-whitespace string, and agent_id wins when both are valid. Retired facts are kept as tombstones (memory_delete erases one for good). confidence is accepted on add and update only.',
    annotations: { title: 'Curate memory', ...destructive },
  },
  memory_list: {
    title: 'List memories',
    description:
      'List the facts an agent\'s memory holds, oldest first, retired ones included (superseded_by says by what), with every field and fact_id; page with next_page_token. Use it to see what you already know before curating, or to find the fact_id to forget or delete.',
    annotations: { title: 'List memories', ...readOnly },
  },
  memory_get: {
    title: 'Read one memory',
    description: 'Read one fact by fact_id with every field: text, times, confidence, pin, tags, entities, source, context, meta, and superseded_by when it was retired.',
    annotations: { title: 'Read one memory', ...readOnly },
  },
  memory_forget: {
    title: 'Forget a memory',
    description:
      'Forget (retire) one fact by fact_id: it is no longer recalled but stays listed and readable, so the history remains. To remove it from the store entirely (a secret stored by mistake), use memory_delete.',
    annotations: { title: 'Forget a memory', ...destructiveOnce },
  },
  memory_delete: {
    title: 'Delete a memory for good',
    description:
      'Erase one fact by fact_id: its text and everything derived from it leave the store, irreversibly. Use it for what must not be kept (a secret, personal data); to stop a stale fact being recalled while keeping its history, use memory_forget.',
    annotations: { title: 'Delete a memory for good', ...destructiveOnce },
  },
  memory_relate: {
    title: 'Relate two facts',
    description:
      'Record a typed relation from one fact to another of the same agent: related, causes, supports, contradicts, has_decision or consolidated_from (remove: true takes it away). Both must be live facts, named by fact_id. Relations follow their facts: when a fact is replaced (memory_reflect update, consolidation) they move to its replacement; when it is forgotten or deleted they go, so none ever points at a fact that is gone. Read them back with read_graph or open_memories.',
    annotations: { title: 'Relate two facts', readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  read_graph: {
    title: 'Read the knowledge graph around a fact or an entity',
    description:
      "The neighbourhood of one fact (the entities it mentions, its relations both ways, what it summarises or what replaced it) or of one entity (the newest facts naming it, and the entities most often named with it, as co_mention edges weighted by how many facts name both). Use it to follow a thread the ranked search did not surface.",
    annotations: { title: 'Read the knowledge graph around a fact or an entity', ...readOnly },
  },
  open_memories: {
    title: 'Open memories by id',
    description: 'Read several facts by fact_id with every field, plus the graph edges around them (relations both ways, entities, lineage). Ids the agent has no fact for are listed under not_found.',
    annotations: { title: 'Open memories by id', ...readOnly },
  },
  memory_consolidate: {
    title: "Consolidate an agent's faded memories",
    description:
      "Summarise the agent's faded facts (decay score below the daemon's consolidation threshold; never pinned or promoted ones) into one summary fact that replaces them: the summary is written first (recallable, its sources listed under replaces), then each source is retired with superseded_by = the summary, and their relations move to it. A source that changed meanwhile (pinned, used, retired) is kept and reported under failures. dry_run previews the summary. The daemon also runs this on its own every N writes.",
    annotations: { title: "Consolidate an agent's faded memories", ...destructive },
  },
  memory_recipes: {
    title: 'List the retrieval recipes',
    description: 'The named retrieval recipes: saved ones (latest versions) and the built-ins not overridden (cheap, balanced, deep, forensic, verified_only, low_latency; builtin: true), each with its candidate counts, graph depth, reranker, token budget and verification flags.',
    annotations: { title: 'List the retrieval recipes', ...readOnly },
  },
  memory_recipe_save: {
    title: 'Save a retrieval recipe',
    description: 'Save a new version of a named retrieval recipe: the given settings merged over its latest version, else over the built-in of that name (so raising deep\'s token_budget keeps its other settings). Every save is kept as a version.',
    annotations: { title: 'Save a retrieval recipe', ...additive },
  },
  memory_slot_set: {
    title: 'Set a memory slot',
    description:
      'Write a standing fact that is injected into every prompt whatever a search matched: user_preferences, project_context, active_constraints or do_not_do (or a name of your own), global or per project_id. Writing the same project, scope and name again updates that one slot (safe to do on every boot). Slots start as needs_review with authority generated; evidence_refs make them supported. A locked slot cannot be deleted.',
    annotations: { title: 'Set a memory slot', readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  memory_slot_list: {
    title: 'List memory slots',
    description: 'List memory slots, by project and by a substring of their name or value (archived ones with archived: true), each with its value, lock, review status, authority, evidence, confidence and visibility; page with next_page_token.',
    annotations: { title: 'List memory slots', ...readOnly },
  },
  memory_slot_delete: {
    title: 'Archive a memory slot',
    description: 'Archive a slot by record_id: it leaves ordinary listings and the context block but stays readable. A locked slot is refused ("slot is locked"): a person unlocks it first (memory_slot_set with locked: false).',
    annotations: { title: 'Archive a memory slot', ...destructiveOnce },
  },
  memory_slot_context: {
    title: 'The memory slots to inject',
    description: 'The slots that apply now, ready to inject into the prompt: for project_id, its slots plus the global ones (a project slot shadows a global one). Each comes with its confidence, review status, authority, evidence and visibility, so you can weigh it. Call it at the start of a task.',
    annotations: { title: 'The memory slots to inject', ...readOnly },
  },
  memory_context: {
    title: 'Assemble the context to inject',
    description:
      'One call at the start of a task: the memory slots that apply (user_preferences, project_context, active_constraints, do_not_do…), your pinned facts, then the facts recalled for `query`, as one block packed to a token budget (mode cheap 1,800 · balanced 3,500 · deep 8,000 · forensic 14,000 tokens, or a recipe). Each item carries its confidence; recalled facts carry their receipts. Recalled facts are cut first; the answer says what was cut and why.',
    annotations: { title: 'Assemble the context to inject', ...readOnly },
  },
  memory_extract: {
    title: 'Extract durable facts from a conversation',
    description:
      'Propose the durable facts a message or a conversation states — preferences, decisions, dates, commitments, corrections — one self-contained sentence each (offline rules by default, or the chat model the daemon is configured with). With remember: true they are stored as unverified facts whose source names the extractor (already remembered ones are not stored twice). Use it at the end of a session instead of storing transcripts.',
    annotations: { title: 'Extract durable facts from a conversation', ...additive },
  },
  save_memory: {
    title: 'Save a memory',
    description:
      'Save a new memory (CortexGraph contract). Memories fade unless used: each has a decay score = use_count^0.6 x f(time since last use) x strength, and gc collects those that fall below the forget threshold. Give strength 1.3-1.5 for important information and preferences, 1.8-2.0 for critical decisions; omitted (with enable_preprocessing, the default), entities and strength are derived from the content. Returns memory_id; an identical memory is not stored twice (duplicate: true). agent_id is optional: omitted, the server\'s default namespace.',
    annotations: { title: 'Save a memory', ...additive },
  },
  search_memory: {
    title: 'Search memories with decay scores',
    description:
      'Search memories (CortexGraph contract) over the whole namespace, ranked by keyword and recency (use_embeddings: true adds semantic search); filter by tags, window_days and min_score (the decay score). Each result carries its decay score, use_count, last_used and age_days. After you actually use a memory in a response, call observe_memory_usage (or touch_memory) so it stays fresh.',
    annotations: { title: 'Search memories with decay scores', ...readOnly },
  },
  touch_memory: {
    title: 'Reinforce a memory',
    description:
      'Reinforce one memory: use_count + 1 and last_used = now, so its decay score rises; boost_strength: true also raises its strength by 0.1 (at most 2). Returns the old and new score. Its text and searchability do not change.',
    annotations: { title: 'Reinforce a memory', ...additive },
  },
  observe_memory_usage: {
    title: 'Record which memories were used',
    description:
      'Call this when memories were actually incorporated into a response (not merely retrieved), with tags describing the conversation: each live memory gets a use and a review; a memory whose own tags barely overlap the context tags (Jaccard < 0.3) counts as cross-domain use and gains 0.1 strength. Unknown ids are reported per id. When the server runs with auto-reinforce off, nothing is written and reinforced is false.',
    annotations: { title: 'Record which memories were used', ...additive },
  },
  gc: {
    title: 'Collect faded memories',
    description:
      'Garbage-collect memories whose decay score fell below the forget threshold (0.05 by default), lowest first; pinned memories are never collected. dry_run is true by default: it reports what would go. With dry_run: false they are deleted for good, or with archive_instead: true retired (kept and listed with the reason, no longer recalled).',
    annotations: { title: 'Collect faded memories', ...destructive },
  },
  search_unified: {
    title: 'Search short- and long-term memory',
    description:
      'Search the store (short-term memory, STM) and the vault\'s markdown notes (long-term memory, LTM: promoted memories and notes written by hand) together. Each side is ranked on its own, scaled so its best result is 1, weighted (stm_weight 1.0, ltm_weight 0.7) and merged; a promoted memory and its note count once. window_days and min_score filter the short-term side. Returns a text block, best first, [STM] or [LTM] per line (verbose: with ids and paths).',
    annotations: { title: 'Search short- and long-term memory', ...readOnly },
  },
  cluster_memories: {
    title: 'Cluster similar memories',
    description:
      'Group similar memories for consolidation (similarity >= threshold, at most max_cluster_size each), or with find_duplicates list near-duplicate pairs. Similarity is vector cosine when every memory has a vector, else keyword overlap (the payload says which). Cluster ids are stable: the same members give the same id, so an id from this call works in consolidate_memories later, until the cluster changes.',
    annotations: { title: 'Cluster similar memories', ...readOnly },
  },
  consolidate_memories: {
    title: 'Merge a cluster of memories',
    description:
      'Merge a cluster from cluster_memories into one memory: its distinct sentences, tags and entities united, use counts summed, the strongest strength, the least confidence. dry_run (default) shows the merge; apply writes it and retires every member with superseded_by = the merged memory (nothing is deleted). An id whose cluster changed since is refused: list the clusters again.',
    annotations: { title: 'Merge a cluster of memories', ...destructive },
  },
  promote_memory: {
    title: 'Promote a memory to a long-term note',
    description:
      'Promote high-value memories to long-term notes in the markdown (Obsidian) vault the daemon is configured with: one note per memory (YAML frontmatter, wikilinks for entities). Name one with memory_id, or auto_detect every memory that qualifies: decay score >= the promote threshold (0.65), or used at least 5 times within 14 days of its creation — and at least a day old, so a brand-new memory never qualifies. force promotes memory_id anyway; dry_run previews. A promoted memory stays searchable and is never garbage-collected.',
    annotations: { title: 'Promote a memory to a long-term note', readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  analyze_message: {
    title: 'Is this message worth saving?',
    description:
      'Decide whether a user message holds something worth remembering, before calling save_memory: it detects explicit requests ("remember this", "don\'t forget", "keep in mind") and durable facts (preferences, decisions, deadlines) on whole words, extracts entities, and suggests tags and a strength. Confidence above 0.7: save it; 0.4-0.7: ask the user first; below 0.4: do not. Advice only: nothing is stored.',
    annotations: { title: 'Is this message worth saving?', ...readOnly },
  },
  analyze_for_recall: {
    title: 'Does this message ask for a memory?',
    description:
      'Decide whether a user message asks about something said or stored before ("what did I say about", "do you remember", "remind me"), before calling search_memory: returns a suggested query (the subject of the question), entities and a confidence (above 0.7: search; 0.4-0.7: ask first; below 0.4: do not). Advice only: nothing is searched.',
    annotations: { title: 'Does this message ask for a memory?', ...readOnly },
  },
};

export const TOOL_NAMES = Object.keys(INPUT_TYPES) as ToolName[];

/** The tools/list entries. */
export const TOOLS: Tool[] = TOOL_NAMES.map((name) => ({
  name,
  title: TEXT[name].title,
  description: TEXT[name].description,
  inputSchema: jsonSchema(INPUT_TYPES[name], 'input') as Tool['inputSchema'],
  outputSchema: jsonSchema(OUTPUT_TYPES[name]) as Tool['outputSchema'],
  annotations: TEXT[name].annotations,
}));

export const isToolName = (name: string): name is ToolName => Object.hasOwn(INPUT_TYPES, name);
