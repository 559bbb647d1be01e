import { Index, MetricKind, ScalarKind } from 'usearch';
const dims = 8;
const idx = new Index({ dimensions: dims, metric: MetricKind.Cos, quantization: ScalarKind.F32, connectivity: 16, expansion_add: 128, expansion_search: 64, multi: false });
const v = (i: number) => { const a = new Float32Array(dims); for (let d = 0; d < dims; d++) a[d] = Math.sin(i * 7 + d); return a; };
for (let i = 1; i <= 151; i++) idx.add(BigInt(i), v(i));
const r = idx.search(v(3), 151, 0);
console.log(r.keys.length, idx.size());
const r2 = idx.search(v(3), 64, 0); console.log(r2.keys.length);
