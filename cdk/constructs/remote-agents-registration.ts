/**
 * Registration of the remote agents at deployment: a CDK trigger invokes a function that reads
 * every agent's card, and fails the deployment (CloudFormation rolls it back) when one offers no
 * interface the harness can call, naming it. It runs again whenever the directory changes (the
 * function's configuration holds it).
 */
import { Duration } from 'aws-cdk-lib';
import { Trigger } from 'aws-cdk-lib/triggers';
import { Construct } from 'constructs';
import { ENV } from './environment.js';
import { HarnessFunction, handlerEntry } from './harness-function.js';

export interface RemoteAgentsRegistrationProps {
  /** The directory, JSON (the `remoteAgents` context). */
  readonly directory: string;
  readonly logLevel: string;
}

export class RemoteAgentsRegistration extends Construct {
  readonly function: HarnessFunction;

  constructor(scope: Construct, id: string, props: RemoteAgentsRegistrationProps) {
    super(scope, id);
    this.function = new HarnessFunction(this, 'Function', {
      entry: handlerEntry('register-remote-agents'),
      description: "tiny-harness: reads the remote agents' cards at deployment",
      timeout: Duration.minutes(1),
      environment: { [ENV.remoteAgents]: props.directory, [ENV.logLevel]: props.logLevel },
    });
    new Trigger(this, 'Trigger', {
      handler: this.function,
      timeout: Duration.minutes(1),
      executeOnHandlerChange: true,
    });
  }
}
