// A uPlot chart in a Preact component: made when mounted, remade when its data changes. Each
// chart has a text alternative (its label), since a canvas says nothing to a screen reader.
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface PlotProps {
  label: string;
  options: Omit<uPlot.Options, 'width' | 'height'>;
  data: uPlot.AlignedData;
  height?: number;
}

export function Plot({ label, options, data, height = 220 }: PlotProps) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current!;
    const plot = new uPlot({ ...options, width: Math.max(320, el.clientWidth), height }, data, el);
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(320, el.clientWidth), height }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [data, options, height]);
  return <div ref={box} class="plot" role="img" aria-label={label} />;
}
