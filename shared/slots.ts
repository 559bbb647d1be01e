// The vocabulary of memory slots, shared by the daemon's rules and every door's schemas.
export const SLOT_STATUSES = ['needs_review', 'approved', 'promoted', 'rejected'] as const;
export const SLOT_VISIBILITIES = ['private', 'shared', 'organization', 'published'] as const;
/** The names agents are told about (any name is allowed). */
export const CONVENTIONAL_SLOTS = ['user_preferences', 'project_context', 'active_constraints', 'do_not_do'] as const;
/** A slot's value, as JSON text, at most this many bytes. */
export const MAX_SLOT_VALUE_BYTES = 16 * 1024;
export const DEFAULT_SLOT_CONFIDENCE = 0.75;
export const DEFAULT_SCOPE = 'user';
