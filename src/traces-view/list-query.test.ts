import { describe, expect, it } from 'vitest';
import { listSearchParams, parseListQuery, type ListQuery } from './list-query.js';

const DEFAULTS: ListQuery = {
  since: '1h',
  sinceMs: 3_600_000,
  metadata: [],
  model: undefined,
  prompt: undefined,
  version: undefined,
  failed: false,
  minCostUsd: undefined,
  minDurationMs: undefined,
  sort: 'time',
  page: 1,
};

describe('parseListQuery', () => {
  const table: Array<{ name: string; qs: string; want: Partial<ListQuery> }> = [
    { name: 'nothing: the defaults', qs: '', want: {} },
    { name: 'blank values count as unset', qs: 'since=&model=&meta=&page=', want: {} },
    { name: 'a window and a sort', qs: 'since=24h&sort=cost', want: { since: '24h', sinceMs: 86_400_000, sort: 'cost' } },
    { name: 'metadata pairs, a value may hold =', qs: 'meta=user%3Du-42&meta=expr%3Da%3Db', want: { metadata: [['user', 'u-42'], ['expr', 'a=b']] } },
    { name: 'model, prompt and version', qs: 'model=gemini-2.5-flash&prompt=greet&version=2', want: { model: 'gemini-2.5-flash', prompt: 'greet', version: 2 } },
    { name: 'failures only, minimums, page', qs: 'failed=1&min_cost=0.001&min_ms=250&page=3', want: { failed: true, minCostUsd: 0.001, minDurationMs: 250, page: 3 } },
    { name: 'a checkbox sends on', qs: 'failed=on', want: { failed: true } },
  ];
  it.each(table)('$name', ({ qs, want }) => {
    expect(parseListQuery(new URLSearchParams(qs))).toStrictEqual({ ...DEFAULTS, ...want });
  });

  const bad: Array<{ qs: string; param: string }> = [
    { qs: 'since=forever', param: 'since' },
    { qs: 'since=31d', param: 'since' },
    { qs: 'sort=name', param: 'sort' },
    { qs: 'meta=novalue', param: 'meta' },
    { qs: 'meta=%3Dx', param: 'meta' },
    { qs: 'version=1.5', param: 'version' },
    { qs: 'version=0', param: 'version' },
    { qs: 'min_cost=-1', param: 'min_cost' },
    { qs: 'min_ms=abc', param: 'min_ms' },
    { qs: 'page=0', param: 'page' },
    { qs: `model=${'x'.repeat(201)}`, param: 'model' },
  ];
  it.each(bad)('refuses $qs naming $param', ({ qs, param }) => {
    expect(() => parseListQuery(new URLSearchParams(qs))).toThrow(expect.objectContaining({ status: 400, param }));
  });
});

describe('listSearchParams', () => {
  it('writes back what was parsed, without defaults', () => {
    const qs = 'since=24h&meta=user%3Du-42&model=m&prompt=p&version=2&failed=1&min_cost=0.5&min_ms=10&sort=duration&page=2';
    expect(listSearchParams(parseListQuery(new URLSearchParams(qs))).toString()).toStrictEqual(qs);
    expect(listSearchParams(DEFAULTS).toString()).toStrictEqual('');
  });

  it('applies a change, e.g. the next page', () => {
    expect(listSearchParams({ ...DEFAULTS, sort: 'cost' }, { page: 2 }).toString()).toStrictEqual('sort=cost&page=2');
  });
});
