// The worker thread that owns every HNSW graph of the daemon (see graph-thread.ts for why). It
// runs one request at a time, in the order they were posted, so a search sees every insert posted
// before it, and a save holds exactly what was posted before it.
import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parentPort } from 'node:worker_threads';
import type { Index as GraphIndex, ScalarKind } from 'usearch';
import { syncPath } from '../files/atomic-file.ts';
import { GRAPH_SETTINGS } from './graph-settings.ts';
import { GRAPH_THREAD_NAME, loadingMark, type FileDigest, type GraphReply, type GraphRequest } from './graph-thread.ts';

// Required, not imported: under tsx (which runs the sources in the tests) importing USearch's ES
// module build inside a worker thread never settles; its CommonJS build loads at once.
const { Index, MetricKind } = createRequire(import.meta.url)('usearch') as typeof import('usearch');

// Named, so `top -H` and /proc tell graph work from the daemon's own (every thread of a Node
// process is "node" otherwise). Linux only; elsewhere, or if refused, the thread keeps its name.
try {
  writeFileSync('/proc/thread-self/comm', GRAPH_THREAD_NAME);
} catch {
  // not Linux, or /proc not mounted: only the name is lost
}

const graphs = new Map<number, GraphIndex>();

const { connectivity, expansionAdd, expansionSearch, scalar } = GRAPH_SETTINGS;

function createGraph(dimensions: number): GraphIndex {
  return new Index({ dimensions, metric: MetricKind.Cos, quantization: scalar as ScalarKind, connectivity, expansion_add: expansionAdd, expansion_search: expansionSearch, multi: false });
}

/** Size and SHA-256 of a file, read in chunks (a graph can be hundreds of megabytes). */
function fileDigest(path: string): FileDigest {
  const hash = createHash('sha256');
  const fd = openSync(path, 'r');
  const chunk = Buffer.allocUnsafe(1 << 20);
  let bytes = 0;
  try {
    for (let n = readSync(fd, chunk); n > 0; n = readSync(fd, chunk)) {
      hash.update(chunk.subarray(0, n));
      bytes += n;
    }
  } finally {
    closeSync(fd);
  }
  return { bytes, sha256: hash.digest('hex') };
}

function graph(id: number): GraphIndex {
  const found = graphs.get(id);
  if (!found) throw new Error(`no graph ${id}`);
  return found;
}

/** What a request answers (undefined when there is nothing to say but that it is done). */
function run(request: GraphRequest): GraphReply['value'] {
  switch (request.op) {
    case 'create':
      graphs.set(request.graph, createGraph(request.dimensions));
      return undefined;
    case 'drop':
      graphs.delete(request.graph);
      return undefined;
    case 'add':
      // One thread: the daemon's own thread has the other core (USearch's default, one per core,
      // made the two contend; an import of 100k local facts ran at 5.4k/s with it, 6.0k/s without).
      graph(request.graph).add(request.keys, request.vectors, 1);
      return undefined;
    case 'remove':
      graph(request.graph).remove(request.key);
      return undefined;
    case 'search': {
      const found = graph(request.graph).search(request.query, request.count, 1);
      return { keys: found.keys, distances: found.distances };
    }
    case 'save': {
      graph(request.graph).save(request.path);
      syncPath(request.path);
      return fileDigest(request.path);
    }
    case 'load': {
      // USearch trusts the file it loads (a damaged one can crash the process or spin), so only a
      // file of the size and SHA-256 recorded when it was saved is loaded.
      if (statSync(request.path).size !== request.bytes) return null;
      if (fileDigest(request.path).sha256 !== request.sha256) return null;
      const loaded = createGraph(request.dimensions);
      writeFileSync(loadingMark(request.path), '', { mode: 0o600 });
      try {
        loaded.load(request.path);
      } finally {
        rmSync(loadingMark(request.path), { force: true });
      }
      graphs.set(request.graph, loaded);
      return loaded.size();
    }
  }
}

parentPort!.on('message', (request: GraphRequest) => {
  let reply: GraphReply;
  try {
    reply = { id: request.id, value: run(request) };
  } catch (error) {
    reply = { id: request.id, error: (error as Error).message };
  }
  parentPort!.postMessage(reply);
});
