// A fact's decay score from its last use to 30 days ahead, with the forget threshold below
// which garbage collection would take it.
import { useMemo } from 'preact/hooks';
import type uPlot from 'uplot';
import type { ResponseOf } from '../api.ts';
import { score, when } from '../format.ts';
import { Plot } from './plot.tsx';

export function DecayChart({ curve }: { curve: ResponseOf<'DecayCurve'> }) {
  const data = useMemo<uPlot.AlignedData>(() => {
    const xs = curve.points.map((p) => Date.parse(p.at) / 1000);
    return [xs, curve.points.map((p) => p.score), xs.map(() => curve.forget_threshold)];
  }, [curve]);
  const options = useMemo(
    () => ({
      scales: { x: { time: true }, y: { range: (_u: uPlot, _min: number, max: number): uPlot.Range.MinMax => [0, Math.max(max, curve.forget_threshold * 2)] } },
      series: [{}, { label: `score (${curve.model})`, stroke: '#7c3aed', width: 2, points: { show: false } }, { label: 'forget threshold', stroke: '#dc2626', dash: [6, 4], points: { show: false } }],
      axes: [{}, { label: 'decay score' }],
    }),
    [curve],
  );
  const fate = curve.forgets_at ? `falls below the forget threshold ${curve.forget_threshold} on ${when(curve.forgets_at)} unless it is used` : 'stays above the forget threshold (pinned, or for at least ten years)';
  return <Plot label={`Decay score now ${score(curve.score)}; it ${fate}.`} options={options} data={data} />;
}
