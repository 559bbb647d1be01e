// Summarise a .cpuprofile: self time and total time per function (top N).
import { readFileSync } from 'node:fs';
const p = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const self = new Map();
const dt = p.timeDeltas; let i = 0;
const counts = new Map();
for (const s of p.samples) { counts.set(s, (counts.get(s) ?? 0) + (dt[i++] ?? 0)); }
const parent = new Map(); for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const total = new Map();
const name = (n) => `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.split('/').slice(-2).join('/')}:${n.callFrame.lineNumber}`;
for (const [id, t] of counts) {
  const n = byId.get(id); self.set(name(n), (self.get(name(n)) ?? 0) + t);
  const seen = new Set(); let cur = id;
  while (cur !== undefined) { const nn = byId.get(cur); const k = name(nn); if (!seen.has(k)) { total.set(k, (total.get(k) ?? 0) + t); seen.add(k); } cur = parent.get(cur); }
}
const all = [...counts.values()].reduce((a, b) => a + b, 0);
console.log('total ms', (all / 1000).toFixed(0));
console.log('--- self');
for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log((v / 1000).toFixed(0).padStart(7), k);
console.log('--- total');
for (const [k, v] of [...total].sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log((v / 1000).toFixed(0).padStart(7), k);
