/**
 * The migration of the task records at deployment (functions/handlers/migrate.ts): a custom
 * resource whose provider calls the migration function until it has scanned the whole table,
 * each call within one invocation's time, so a table of any size migrates without a call that
 * outlives Lambda's limit. It runs again whenever the function's code changes (its bundle holds
 * the store's code: a build that stores records otherwise is a new bundle).
 */
import { CustomResource, Duration, Stack } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { CfnFunction, IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Provider } from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import { HarnessFunction, handlerEntry } from './harness-function.js';
import { acknowledge, wildcardResourceFinding } from './nag.js';

export interface RecordMigrationProps {
  readonly table: ITableV2;
  /** The variables every function reads (its configuration is validated at cold start). */
  readonly environment: Record<string, string>;
}

/**
 * How long the framework asks: CloudFormation's own limit on a custom resource (an hour). The
 * migration says it is complete well before it (functions/handlers/migrate.ts,
 * `MIGRATION_WAIT_MS`), so it never times out a deployment.
 */
export const MIGRATION_TOTAL_TIMEOUT = Duration.hours(1);

export class RecordMigration extends Construct {
  readonly function: HarnessFunction;
  readonly resource: CustomResource;

  constructor(scope: Construct, id: string, props: RecordMigrationProps) {
    super(scope, id);
    this.function = new HarnessFunction(this, 'MigrationFunction', {
      entry: handlerEntry('migrate'),
      description: 'tiny-harness: migrates the task records an earlier build stored, at deployment',
      timeout: Duration.minutes(15),
      environment: props.environment,
    });
    this.function.bindTable({ table: props.table, access: 'migrate' });
    // The framework's functions log to one group, with a role of our own: the
    // default one carries AWSLambdaBasicExecutionRole (logs:* on every group).
    const logGroup = new LogGroup(this, 'ProviderLogs', { retention: RetentionDays.ONE_MONTH });
    // Two roles: the first call's starts the waiter, whose steps run with the second.
    const frameworkRole = (name: string) => {
      const role = new Role(this, `${name}Role`, {
        assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
        description: `tiny-harness: the migration provider framework's ${name} (execution role)`,
      });
      logGroup.grantWrite(role);
      acknowledge(
        role,
        wildcardResourceFinding(this, `${this.function.functionArn}:*`),
        'The provider framework invokes the migration function by its ARN and any of its versions (<ARN>:*); it invokes no other function.'
      );
      return role;
    };
    const provider = new Provider(this, 'Provider', {
      onEventHandler: this.function,
      isCompleteHandler: this.function,
      queryInterval: Duration.seconds(10),
      totalTimeout: MIGRATION_TOTAL_TIMEOUT,
      logGroup,
      frameworkOnEventRole: frameworkRole('OnEvent'),
      frameworkCompleteAndTimeoutRole: frameworkRole('IsComplete'),
    });
    const waiter = provider.node.findChild('waiter-state-machine');
    for (const step of ['framework-isComplete', 'framework-onTimeout']) {
      const fn = provider.node.findChild(step) as IFunction;
      acknowledge(
        waiter,
        wildcardResourceFinding(this, `${fn.functionArn}:*`),
        `The waiter state machine invokes the framework's ${step} function by its ARN and any of its versions, and no other.`
      );
    }
    acknowledge(
      waiter,
      'AwsSolutions-SF1',
      'The waiter only calls isComplete every few seconds; every call and its answer is logged by the framework\'s functions into the migration\'s log group, and logging the waiter itself would grant log writes on every group ("*").'
    );
    acknowledge(
      waiter,
      'AwsSolutions-SF2',
      "The framework's waiter only calls isComplete every few seconds; the provider offers no tracing option for it."
    );
    const code = (this.function.node.defaultChild as CfnFunction).code as CfnFunction.CodeProperty;
    this.resource = new CustomResource(this, 'Run', {
      serviceToken: provider.serviceToken,
      resourceType: 'Custom::TaskRecordMigration',
      // A new bundle is a new run; the same one deployed again changes nothing.
      properties: { Bundle: Stack.of(this).resolve(code.s3Key) },
    });
  }
}
