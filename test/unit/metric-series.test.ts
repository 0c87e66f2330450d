/**
 * Series updated in place (src/observability/metric-series.ts) export exactly what the same updates
 * made through prom-client's API export — as text and as the JSON the cluster aggregator sums.
 */
import { AggregatorRegistry, Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { counterSeries, histogramSeries } from '../../src/observability/metric-series.ts';

const BUCKETS = [0.001, 0.01, 0.1, 1];
const OBSERVED = [0.0005, 0.001, 0.0011, 0.05, 0.1, 0.7, 1, 3, 250, 0];

function metricsOn(registry: Registry) {
  return {
    counter: new Counter({ name: 'c_total', help: 'c', labelNames: ['route', 'status'], registers: [registry] }),
    histogram: new Histogram({
      name: 'h_seconds',
      help: 'h',
      labelNames: ['route', 'status'],
      buckets: BUCKETS,
      registers: [registry],
    }),
  };
}

describe('metric series', () => {
  it('when a counter and a histogram are updated through series, then they export what prom-client’s own updates export', async () => {
    const [viaApi, viaSeries] = [new Registry(), new Registry()];
    const api = metricsOn(viaApi);
    const fast = metricsOn(viaSeries);
    const labelSets = [
      { route: '/a', status: '200' },
      { route: '/b/:id', status: '404' },
    ];
    for (const labels of labelSets) {
      const requests = counterSeries(fast.counter, labels);
      const durations = histogramSeries(fast.histogram, labels);
      for (const v of OBSERVED) {
        api.counter.inc(labels);
        api.histogram.observe(labels, v);
        requests.inc();
        durations.observe(v);
      }
    }
    // A series seen but never updated: prom-client's `zero` and a counter at 0.
    counterSeries(fast.counter, { route: '/c', status: '500' });
    histogramSeries(fast.histogram, { route: '/c', status: '500' });
    api.counter.inc({ route: '/c', status: '500' }, 0);
    api.histogram.zero({ route: '/c', status: '500' });

    expect(await viaSeries.metrics()).toBe(await viaApi.metrics());
    const summed = async (r: Registry) => await AggregatorRegistry.aggregate([await r.getMetricsAsJSON()]).metrics();
    expect(await summed(viaSeries)).toBe(await summed(viaApi));
    expect(await viaSeries.metrics()).toContain('h_seconds_bucket{le="0.01",route="/a",status="200"} 4');
  });

  it('when prom-client lets go of its series (reset), then a series finds its new entry and keeps counting', async () => {
    const registry = new Registry();
    const { counter, histogram } = metricsOn(registry);
    const labels = { route: '/a', status: '200' };
    const requests = counterSeries(counter, labels);
    const durations = histogramSeries(histogram, labels);
    requests.inc();
    durations.observe(0.5);
    registry.resetMetrics();
    requests.inc();
    durations.observe(0.005);
    const text = await registry.metrics();
    expect(text).toContain('c_total{route="/a",status="200"} 1');
    expect(text).toContain('h_seconds_count{route="/a",status="200"} 1');
    expect(text).toContain('h_seconds_sum{route="/a",status="200"} 0.005');
  });

  it('when a value is not a number, then observing it throws as prom-client does', () => {
    const { histogram } = metricsOn(new Registry());
    expect(() => histogramSeries(histogram, { route: '/a', status: '200' }).observe(Number.NaN)).toThrow(TypeError);
  });
});
