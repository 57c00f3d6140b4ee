// Horizontal bar charts as inline SVG: one bar per row, a tick at its
// ceiling, colour by how much of the ceiling is used. Integer coordinates
// only, so the bytes never depend on floating-point formatting.
import type { Element } from 'hast';
import { h } from './util/hast.ts';

export interface Bar {
  label: string;
  value: number;
  /** The ceiling; null when the row has none. */
  limit: number | null;
  /** Where the label links to (relative URL), if anywhere. */
  href?: string;
}

const WIDTH = 760;
/** Width of one character of the 12px monospace labels, rounded up. */
const CHARACTER = 8;
const VALUE = 110;
const ROW = 18;
const TOP = 6;

export function barChart(title: string, bars: readonly Bar[]): Element {
  const scale = Math.max(1, ...bars.map((bar) => Math.max(bar.value, bar.limit ?? 0)));
  const LABEL = Math.min(320, 16 + CHARACTER * Math.max(8, ...bars.map((bar) => [...bar.label].length)));
  const plot = WIDTH - LABEL - VALUE;
  const x = (value: number) => LABEL + Math.round((value / scale) * plot);
  const height = TOP * 2 + bars.length * ROW;
  const rows = bars.map((bar, index) => {
    const y = TOP + index * ROW;
    const state = bar.limit === null ? 'free' : bar.value > bar.limit ? 'over' : bar.value * 10 >= bar.limit * 9 ? 'near' : 'ok';
    const label = h('text', { x: LABEL - 8, y: y + 13, textAnchor: 'end' }, bar.label);
    return h(
      'g',
      { className: ['bar', state] },
      h('title', {}, `${bar.label}: ${bar.value} bytes${bar.limit === null ? ', no ceiling' : ` of ${bar.limit} (${Math.round((bar.value / bar.limit) * 100)}%)`}`),
      bar.href ? h('a', { href: bar.href }, label) : label,
      h('rect', { x: LABEL, y: y + 3, width: Math.max(1, x(bar.value) - LABEL), height: ROW - 6, rx: 2 }),
      bar.limit === null ? null : h('line', { className: ['limit'], x1: x(bar.limit), x2: x(bar.limit), y1: y + 1, y2: y + ROW - 1 }),
      h('text', { className: ['value'], x: WIDTH - VALUE + 8, y: y + 13 }, bar.limit === null ? `${bar.value}` : `${bar.value} / ${bar.limit}`),
    );
  });
  return h(
    'svg',
    { xmlns: 'http://www.w3.org/2000/svg', viewBox: `0 0 ${WIDTH} ${height}`, width: WIDTH, height, role: 'img', ariaLabel: title, className: ['chart'] },
    h('title', {}, title),
    ...rows,
  );
}
