import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type Sampler,
} from '@opentelemetry/sdk-trace-base';
import type { OtelConfig } from './read-otel-config.js';

/** The SDK sampler named by `OTEL_TRACES_SAMPLER` / `OTEL_TRACES_SAMPLER_ARG` (already validated). */
export function createSampler(sampler: OtelConfig['sampler']): Sampler {
  switch (sampler.name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(sampler.ratio);
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(sampler.ratio) });
    default: {
      const never: never = sampler.name;
      return never;
    }
  }
}
