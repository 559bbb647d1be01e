// The built-in context assembly modes, as every door names them. Apart from the zod fields that
// use them, so the CLI, which only lists and checks them, does not load a schema library.
export const CONTEXT_MODES = ['cheap', 'balanced', 'deep', 'forensic'] as const;
