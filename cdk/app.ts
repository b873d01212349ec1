/**
 * Builds the CDK app: the one HarnessStack, checked by cdk-nag's AwsSolutions pack (v3: a
 * validation plugin; an unacknowledged finding makes `app.synth()` throw).
 *
 * The local runtime calls this (in a child process) with `bundle: false` to get the template
 * (and the turn state machine's definition) without running esbuild.
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { type HarnessConfig, readHarnessConfig } from './config.js';
import { HarnessStack } from './stacks/harness-stack.js';

export interface BuildAppOptions {
  /** Cloud assembly directory; the CLI's (CDK_OUTDIR) or a temporary one by default. */
  readonly outdir?: string;
  /** Context values (see cdk/config.ts); the CLI's `-c` and cdk.json take precedence. */
  readonly context?: Record<string, unknown>;
  /** `false` skips Lambda bundling (the template stays complete). @default true */
  readonly bundle?: boolean;
  /**
   * CDK's built-in CloudFormation schema validation (a WebAssembly validator: about 8 s of a
   * 9 s synthesis here). cdk-nag runs either way. @default the value of `bundle`, so a
   * deployable assembly is fully checked and a quick template read stays quick
   */
  readonly validateTemplate?: boolean;
  /** The region the CLI deploys to (CDK_DEFAULT_REGION), checked against where the stack runs. */
  readonly region?: string | undefined;
}

/** `TinyHarness-<stage>`: stages deploy side by side in one account. */
export const stackNameFor = (stage: string): string => `TinyHarness-${stage}`;

export function buildApp(options: BuildAppOptions = {}): { app: App; stack: HarnessStack } {
  const { app, config } = configuredApp(options);
  return { app, stack: harnessStackIn(app, config) };
}

/** The app and its checked configuration, before any stack: a bad configuration throws here. */
export function configuredApp(options: BuildAppOptions = {}): { app: App; config: HarnessConfig } {
  const bundle = options.bundle ?? true;
  const app = new App({
    ...(options.outdir === undefined ? {} : { outdir: options.outdir }),
    builtinCloudFormationValidation: options.validateTemplate ?? bundle,
    context: {
      // The CLI's default, needed in-process too: the local runtime finds resources by their
      // construct path (Metadata["aws:cdk:path"]).
      'aws:cdk:enable-path-metadata': true,
      ...options.context,
      // No stack is bundled: NodejsFunction leaves its entry unread.
      ...(bundle ? {} : { 'aws:cdk:bundling-stacks': [] }),
    },
  });
  return { app, config: readHarnessConfig(app, options.region) };
}

/** The one HarnessStack in `app`, checked by cdk-nag when the app synthesizes. */
export function harnessStackIn(app: App, config: HarnessConfig): HarnessStack {
  const stack = new HarnessStack(app, stackNameFor(config.stage), {
    config,
    description: `tiny-harness (${config.stage}): A2A agent harness on Step Functions, Lambda and DynamoDB`,
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return stack;
}
