// The shape of an agent token, known to both sides: the daemon reads its id from one, and
// neither side may take one for the daemon's own token (which opens everything).

/** An agent token: "engram_" + a 12-hex-digit id + "_" + 43 characters of secret. */
export const AGENT_TOKEN = /^engram_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$/;

export const isAgentToken = (token: string): boolean => AGENT_TOKEN.test(token.trim());
