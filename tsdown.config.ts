// The build: the `engram` command (its daemon, CLI and MCP parts are separate chunks, loaded only
// when used) and the client library with its type declarations. Dependencies stay external.
import { defineConfig } from 'tsdown';

export default defineConfig({
  // The vector graphs' worker thread is its own file, which the daemon starts by name.
  entry: { engram: 'bin/engram.ts', index: 'client/index.ts', 'graph-worker': 'daemon/index/graph-worker.ts' },
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outDir: 'dist',
  clean: true,
  dts: true,
  logLevel: 'warn',
  fixedExtension: false,
});
