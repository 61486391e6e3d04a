import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../errors.js';
import { compileCondition, type ConditionContext } from './conditions.js';

const context: ConditionContext = {
  metadata: { plan: 'pro', region: 'eu-west', tier: '10' },
  params: { model: 'gemini-2.5-flash', max_tokens: 300, temperature: 0.2, stream: true, response_format: { type: 'json_object' } },
};

describe('compileCondition', () => {
  const cases: Array<{ name: string; query: unknown; want: boolean }> = [
    { name: 'shorthand equality on metadata', query: { 'metadata.plan': 'pro' }, want: true },
    { name: 'shorthand equality mismatch', query: { 'metadata.plan': 'free' }, want: false },
    { name: 'several keys are ANDed', query: { 'metadata.plan': 'pro', 'params.stream': false }, want: false },
    { name: '$eq on a param', query: { 'params.model': { $eq: 'gemini-2.5-flash' } }, want: true },
    { name: '$ne', query: { 'params.model': { $ne: 'gpt-4o' } }, want: true },
    { name: '$ne on a missing field holds', query: { 'metadata.team': { $ne: 'x' } }, want: true },
    { name: '$eq on a missing field fails', query: { 'metadata.team': { $eq: 'x' } }, want: false },
    { name: '$in', query: { 'metadata.plan': { $in: ['pro', 'enterprise'] } }, want: true },
    { name: '$nin', query: { 'metadata.plan': { $nin: ['pro', 'enterprise'] } }, want: false },
    { name: '$nin on a missing field holds', query: { 'metadata.team': { $nin: ['a'] } }, want: true },
    { name: '$gt numbers', query: { 'params.max_tokens': { $gt: 299 } }, want: true },
    { name: '$gte equal', query: { 'params.max_tokens': { $gte: 300 } }, want: true },
    { name: '$lt', query: { 'params.temperature': { $lt: 0.2 } }, want: false },
    { name: '$lte', query: { 'params.temperature': { $lte: 0.2 } }, want: true },
    { name: 'numeric metadata string against a number', query: { 'metadata.tier': { $gt: 9 } }, want: true },
    { name: 'numeric metadata string equals a number', query: { 'metadata.tier': 10 }, want: true },
    { name: 'range: two operators both hold', query: { 'params.max_tokens': { $gt: 100, $lt: 500 } }, want: true },
    { name: 'range: one operator fails', query: { 'params.max_tokens': { $gt: 100, $lt: 200 } }, want: false },
    { name: 'strings compare lexically', query: { 'metadata.region': { $gte: 'eu' } }, want: true },
    { name: 'string against number cannot be ordered', query: { 'metadata.region': { $gt: 1 } }, want: false },
    { name: 'missing field cannot be ordered', query: { 'params.top_p': { $lt: 1 } }, want: false },
    { name: '$regex', query: { 'params.model': { $regex: '^gemini-2\\.5' } }, want: true },
    { name: '$regex on a non-string', query: { 'params.max_tokens': { $regex: '3' } }, want: false },
    { name: 'nested param path', query: { 'params.response_format.type': 'json_object' }, want: true },
    { name: '$or one holds', query: { $or: [{ 'metadata.plan': 'free' }, { 'metadata.region': 'eu-west' }] }, want: true },
    { name: '$or none holds', query: { $or: [{ 'metadata.plan': 'free' }, { 'metadata.region': 'us' }] }, want: false },
    { name: '$and all hold', query: { $and: [{ 'metadata.plan': 'pro' }, { 'params.stream': true }] }, want: true },
    {
      name: '$and nesting $or',
      query: { $and: [{ $or: [{ 'metadata.plan': 'free' }, { 'metadata.plan': 'pro' }] }, { 'params.max_tokens': { $lte: 300 } }] },
      want: true,
    },
    { name: 'empty query matches everything', query: {}, want: true },
    { name: 'prototype keys are not fields', query: { 'params.constructor': { $regex: '' } }, want: false },
  ];

  it.each(cases)('$name', ({ query, want }) => {
    expect(compileCondition(query, 'config.strategy.conditions[0].query')(context)).toBe(want);
  });

  const invalid: Array<{ name: string; query: unknown; param: string }> = [
    { name: 'bad regex', query: { 'params.model': { $regex: '([a-z' } }, param: 'q.params.model.$regex' },
    { name: 'unknown field operator', query: { 'params.model': { $like: 'x' } }, param: 'q.params.model.$like' },
    { name: 'unknown top-level operator', query: { $not: [] }, param: 'q.$not' },
    { name: '$in without an array', query: { 'metadata.plan': { $in: 'pro' } }, param: 'q.metadata.plan.$in' },
    { name: '$gt with an object', query: { 'params.max_tokens': { $gt: {} } }, param: 'q.params.max_tokens.$gt' },
    { name: '$or without an array', query: { $or: { 'metadata.plan': 'pro' } }, param: 'q.$or' },
    { name: 'bad query inside $and', query: { $and: [{}, { 'params.model': { $regex: '(' } }] }, param: 'q.$and[1].params.model.$regex' },
    { name: 'field outside metadata and params', query: { 'url.pathname': '/v1' }, param: 'q.url.pathname' },
    { name: 'bare root', query: { metadata: 'x' }, param: 'q.metadata' },
    { name: 'array shorthand', query: { 'metadata.plan': ['a'] }, param: 'q.metadata.plan' },
    { name: 'empty operator object', query: { 'metadata.plan': {} }, param: 'q.metadata.plan' },
    { name: 'not an object', query: 'metadata.plan == pro', param: 'q' },
  ];

  it.each(invalid)('rejects $name at compile time', ({ query, param }) => {
    let caught: unknown;
    try {
      compileCondition(query, 'q');
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(InvalidRequestError);
    expect((caught as InvalidRequestError).param).toBe(param);
    expect((caught as InvalidRequestError).status).toBe(400);
  });
});
