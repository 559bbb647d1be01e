// Facts over time: facts created per day, and how many of those are retired now.
import { useMemo } from 'preact/hooks';
import uPlot from 'uplot';
import type { ResponseOf } from '../api.ts';
import { Plot } from './plot.tsx';

export function TimelineChart({ days }: { days: ResponseOf<'Timeline'>['days'] }) {
  const data = useMemo<uPlot.AlignedData>(() => [days.map((d) => Date.parse(`${d.day}T00:00:00Z`) / 1000), days.map((d) => d.created), days.map((d) => d.retired)], [days]);
  const options = useMemo(
    () => ({
      // A day of padding each side, so a namespace written in one day still shows a bar.
      scales: { x: { time: true, range: (_u: uPlot, min: number, max: number): uPlot.Range.MinMax => [min - 86_400, max + 86_400] } },
      series: [
        {},
        { label: 'created', stroke: '#2563eb', fill: 'rgba(37,99,235,0.25)', paths: uPlot.paths.bars!({ size: [0.8, 40] }) },
        { label: 'retired now', stroke: '#b45309', fill: 'rgba(180,83,9,0.35)', paths: uPlot.paths.bars!({ size: [0.5, 24] }) },
      ],
      axes: [{}, { label: 'facts' }],
    }),
    [],
  );
  if (!days.length) return <p>No facts yet.</p>;
  const total = days.reduce((n, d) => n + d.created, 0);
  return <Plot label={`Facts created per day: ${total} facts over ${days.length} day(s), from ${days[0]!.day} to ${days[days.length - 1]!.day}`} options={options} data={data} />;
}
