// Server instructions, sent in every initialize response; hosts show them to the model at the
// start of a session. They exist because agents connected to a memory server tend to connect,
// searched now and then, and never stored anything: tool descriptions alone do not tell a model
// WHEN to act. So this text is about timing — when to search, when to add — not about how.
// It is a constant on purpose: it never carries store contents or anything from runtime state
// (memory reaches the model only through tool results), and it rides every session, so keep it short.
import { SHARED_AGENT_ID } from '../validate.ts';

export const SERVER_INSTRUCTIONS = `Engram is your long-term memory: facts you store survive this session and are shared with every other session on this machine. Use one stable agent_id (e.g. the project name) every time.

WHEN TO SEARCH: before answering anything that may depend on earlier sessions, the user's preferences, or facts about this project (decisions, conventions, people, environments, past problems), call memory_search first — and again with agent_id "${SHARED_AGENT_ID}" for facts every agent shares. Holding several questions? One memory_search_batch call. At the start of a session, call checkpoint_resume with on_missing "empty" to pick up interrupted work.

WHEN TO ADD: whenever you learn a durable fact, make or hear a decision, discover a preference, or are corrected, call memory_add right away — one self-contained sentence per call. Do not wait for the end of the session, and never store secrets or whole transcripts. When a stored fact turns out wrong or stale, replace it with memory_reflect action "update" (target = its fact_id or exact text); "forget" retires it. Before stopping mid-task, checkpoint_save.

A weak-match note in search results means your words differ from the stored ones: search once more with the suggested terms, and record the synonym with memory_alias. Confidence labels (verified / inferred / unverified) are your own declaration, not verification by Engram.`;
