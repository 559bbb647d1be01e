import { Index, MetricKind, ScalarKind } from 'usearch';
const dims = 100, n = 30000;
const idx = new Index({ dimensions: dims, metric: MetricKind.Cos, quantization: ScalarKind.F32, connectivity: 16, expansion_add: 128, expansion_search: 64, multi: false });
const m = new Float32Array(n * dims); for (let i = 0; i < m.length; i++) m[i] = Math.random() - 0.5;
const keys = new BigUint64Array(n); for (let i = 0; i < n; i++) keys[i] = BigInt(i + 1);
let t = performance.now(); idx.add(keys, m); console.log('add', (performance.now() - t).toFixed(0), 'ms');
for (const k of [16, 32, 64, 128]) {
  const times: number[] = [];
  for (let q = 0; q < 300; q++) { const v = m.subarray((q * 7 % n) * dims, (q * 7 % n) * dims + dims); const s = performance.now(); idx.search(v, k, 0); times.push(performance.now() - s); }
  times.sort((a, b) => a - b); console.log('k', k, 'p50', times[150].toFixed(3), 'p99', times[297].toFixed(3));
}
