import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  powertoolsTurnMetrics,
  TURN_METRICS,
} from '../../../functions/adapters/system/turn-metrics.js';

describe('the turn step metrics (Powertools, embedded metric format)', () => {
  afterEach(() => vi.restoreAllMocks());

  it('writes one EMF line per model call, in the TinyHarness namespace, by service and stage', () => {
    const lines: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      lines.push(String(chunk));
      return true;
    });

    powertoolsTurnMetrics('prod').modelCall({
      usage: { inputTokens: 1200, cachedInputTokens: 1000, outputTokens: 80 },
      costUsd: 0.0031,
    });

    const emf = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(emf).toHaveLength(1);
    const [record] = emf as [Record<string, unknown> & { _aws: { CloudWatchMetrics: unknown[] } }];
    expect(record).toMatchObject({
      service: TURN_METRICS.service,
      stage: 'prod',
      ModelCalls: 1,
      InputTokens: 1200,
      CachedInputTokens: 1000,
      OutputTokens: 80,
      ModelCostUSD: 0.0031,
    });
    expect(record._aws.CloudWatchMetrics).toEqual([
      expect.objectContaining({
        Namespace: TURN_METRICS.namespace,
        Dimensions: [expect.arrayContaining(['service', 'stage'])],
      }),
    ]);
  });
});
