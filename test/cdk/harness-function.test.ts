import { App, Duration, Stack } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { HarnessFunction, handlerEntry } from '../../cdk/constructs/harness-function.js';

const stackWith = (bundle: boolean) => {
  const app = new App({
    // The WebAssembly CloudFormation validator adds seconds and checks nothing asserted here.
    builtinCloudFormationValidation: false,
    context: bundle ? {} : { 'aws:cdk:bundling-stacks': [] },
  });
  return new Stack(app, 'Probe');
};

const make = (stack: Stack, name: string) =>
  new HarnessFunction(stack, 'Probe', {
    entry: handlerEntry(name),
    description: 'probe',
    timeout: Duration.seconds(3),
  });

describe('HarnessFunction entries', () => {
  it('refuses a handler entry that does not exist, bundling on or off', () => {
    expect(() => make(stackWith(true), 'not-written')).toThrow(/Cannot find entry file/);
    expect(() => make(stackWith(false), 'not-written')).toThrow(/Cannot find entry file/);
  });

  it('accepts each handler the stack deploys', () => {
    for (const name of ['turn-step', 'stream', 'a2a', 'push', 'reconcile']) {
      expect(() => make(stackWith(false), name)).not.toThrow();
    }
  });
});
