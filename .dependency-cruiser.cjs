// The import rules of the code base, checked by test/import-graph.test.ts (npm run lint:imports
// prints the same report). Type-only imports count: a rule is about what a module knows.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'No import cycles in daemon/, client/ or shared/.',
      from: { path: '^(daemon|client|shared)/' },
      to: { circular: true },
    },
    {
      name: 'store-library-behind-the-store-interface',
      severity: 'error',
      comment: 'Only the LevelDB store knows classic-level (and abstract-level) or a key layout.',
      from: { pathNot: '^daemon/store/level/' },
      to: { path: 'node_modules/(classic-level|abstract-level)/' },
    },
    {
      name: 'stores-used-only-by-the-composition-root',
      severity: 'error',
      comment: 'Everything but the composition root, the store chooser (and tools) uses the MemoryStore interface.',
      from: { path: '^daemon/', pathNot: '^daemon/(server\\.ts|repair\\.ts|migrate\\.ts|store/open\\.ts|store/level/|store/postgres/)' },
      to: { path: '^daemon/store/(level|postgres)/' },
    },
    {
      name: 'front-doors-call-the-core',
      severity: 'error',
      comment: 'gRPC and HTTP adapters translate and call the core facade, never the store, an index or a lifecycle module.',
      from: { path: '^daemon/(rpc|http)/' },
      to: { path: '^daemon/(store|index|lifecycle|write|jobs|recall|embed)/' },
    },
    {
      name: 'client-and-daemon-apart',
      severity: 'error',
      comment: 'client/ and daemon/ never import each other.',
      from: { path: '^client/' },
      to: { path: '^daemon/' },
    },
    {
      name: 'daemon-and-client-apart',
      severity: 'error',
      from: { path: '^daemon/' },
      to: { path: '^client/' },
    },
    {
      name: 'shared-imports-neither',
      severity: 'error',
      comment: 'shared/ is imported by both sides and imports neither.',
      from: { path: '^shared/' },
      to: { path: '^(daemon|client)/' },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^shared/gen/' },
  },
};
