// Agent tokens: bearer tokens that open only some namespaces, with some rights. The store keeps
// each token's SHA-256, never the token: it is shown once, when it is made. The daemon keeps the
// live ones in memory too, so a revocation refuses the very next call.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { fieldNotFound, invalidArgument } from '../../shared/errors.ts';
import * as check from '../../shared/validate.ts';
import { SHARED_AGENT_ID } from '../../shared/validate.ts';
import type { CallContext, Principal } from '../core/context.ts';
import type { Json, MemoryStore } from '../store/store.ts';
import { TOKENS_NAMESPACE, type WritePipeline } from '../write/pipeline.ts';
import { RIGHTS, type Grant, type Right, type TokenInfo } from '../../shared/model.ts';
import { AGENT_TOKEN } from '../../shared/agent-token.ts';
import { digest } from './bearer.ts';
import { authorizeDaemon } from './grant.ts';

export type { TokenInfo } from '../../shared/model.ts';

interface StoredToken extends TokenInfo {
  /** SHA-256 of the secret, hex. */
  readonly hash: string;
}

export interface TokenInput {
  agents: unknown;
  rights?: unknown;
  shared?: unknown;
  label?: unknown;
}

const PREFIX = 'engram_';
const MAX_AGENTS = 256;

function parse(token: string): { id: string; secret: string } | null {
  const match = AGENT_TOKEN.exec(token);
  return match ? { id: match[1]!, secret: match[2]! } : null;
}

function rightsOf(value: unknown, field: string, fallback: readonly Right[]): Right[] {
  if (value === undefined) return [...fallback];
  if (!Array.isArray(value)) throw invalidArgument(field, `must be a list of rights (${RIGHTS.join(', ')})`);
  for (const right of value) if (!RIGHTS.includes(right as Right)) throw invalidArgument(field, `"${String(right)}" is not a right; rights are ${RIGHTS.join(', ')}`);
  return RIGHTS.filter((r) => value.includes(r));
}

function checkInput(input: TokenInput): Omit<Grant, never> & { label: string } {
  if (!Array.isArray(input.agents) || input.agents.length === 0) throw invalidArgument('agents', 'must name at least one agent namespace');
  if (input.agents.length > MAX_AGENTS) throw invalidArgument('agents', `names ${input.agents.length} namespaces; at most ${MAX_AGENTS}`);
  const agents = [...new Set(input.agents.map((a, i) => check.agentId(a, `agents[${i}]`)))].sort();
  if (agents.includes(SHARED_AGENT_ID)) throw invalidArgument('agents', `${SHARED_AGENT_ID} is the shared namespace: its rights are given with shared, not agents`);
  const rights = rightsOf(input.rights, 'rights', ['read', 'write']);
  if (rights.length === 0) throw invalidArgument('rights', 'must hold at least one right');
  const label = input.label === undefined ? '' : check.string(input.label, 'label', 200);
  return { agents, rights, shared: rightsOf(input.shared, 'shared', ['read']), label };
}

const infoOf = ({ hash: _hash, ...info }: StoredToken): TokenInfo => info;

export class AgentTokens {
  private readonly byId = new Map<string, StoredToken>();

  constructor(
    private readonly store: MemoryStore,
    private readonly pipeline: WritePipeline,
  ) {}

  /** Loads the tokens; again whenever another daemon sharing the store made or revoked one. */
  async open(): Promise<void> {
    const loaded = new Map<string, StoredToken>();
    for await (const [id, value] of this.store.scanRecords('tokens')) loaded.set(id, value as unknown as StoredToken);
    this.byId.clear();
    for (const [id, token] of loaded) this.byId.set(id, token);
  }

  /** A new token; its secret is in the answer and nowhere else. */
  async create(ctx: CallContext, input: TokenInput): Promise<{ token: string; info: TokenInfo }> {
    authorizeDaemon(ctx, 'make tokens');
    const grant = checkInput(input);
    const id = randomBytes(6).toString('hex');
    const secret = randomBytes(32).toString('base64url');
    const stored: StoredToken = { id, ...grant, createdAt: Date.now(), createdBy: ctx.principal.id, revokedAt: 0, hash: digest(secret).toString('hex') };
    // No request id: a repeat could not be answered, the secret being kept nowhere.
    await this.commit(ctx, stored);
    return { token: `${PREFIX}${id}_${secret}`, info: infoOf(stored) };
  }

  list(ctx: CallContext): TokenInfo[] {
    authorizeDaemon(ctx, 'list tokens');
    return [...this.byId.values()].sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1)).map(infoOf);
  }

  /** Revokes a token at once; revoking one already revoked changes nothing. */
  async revoke(ctx: CallContext, idInput: unknown): Promise<TokenInfo> {
    authorizeDaemon(ctx, 'revoke tokens');
    const id = check.string(idInput, 'id', 64);
    const token = this.byId.get(id);
    if (!token) throw fieldNotFound('id', `no token ${id} (engram token list shows them)`);
    if (token.revokedAt) return infoOf(token);
    const revoked = { ...token, revokedAt: Date.now() };
    await this.commit(ctx, revoked);
    return infoOf(revoked);
  }

  /** The principal a presented token proves, or null if it is no live agent token. */
  principalOf(token: string): Principal | null {
    const parsed = parse(token);
    const stored = parsed && this.byId.get(parsed.id);
    if (!parsed || !stored || stored.revokedAt) return null;
    if (!timingSafeEqual(digest(parsed.secret), Buffer.from(stored.hash, 'hex'))) return null;
    return { id: `token:${stored.id}`, via: 'agent-token', grant: { agents: stored.agents, rights: stored.rights, shared: stored.shared } };
  }

  private commit(ctx: CallContext, token: StoredToken): Promise<void> {
    return this.pipeline.run(ctx, {
      agentId: TOKENS_NAMESPACE,
      requestId: '',
      locks: [token.id],
      plan: async () => () => ({
        changes: [{ type: 'putRecord', table: 'tokens', key: token.id, value: token as unknown as Json }],
        result: undefined,
        apply: () => void this.byId.set(token.id, token),
      }),
      replay: async () => undefined,
    });
  }
}
