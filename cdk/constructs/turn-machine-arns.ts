/**
 * The turn state machine's ARNs, computed from its fixed name rather than read from the
 * resource: the state machine references the turn and tool step functions, so a function
 * environment or grant that referenced the state machine would be a dependency cycle.
 */
import { ArnFormat, type Stack } from 'aws-cdk-lib';

export interface TurnMachineArns {
  readonly stateMachineName: string;
  readonly stateMachineArn: string;
  /** `arn:…:execution:<name>:*`: every execution of the machine (Stop/Describe act on these). */
  readonly executionArnPattern: string;
}

export const turnMachineArns = (stack: Stack, stateMachineName: string): TurnMachineArns => ({
  stateMachineName,
  stateMachineArn: stack.formatArn({
    service: 'states',
    resource: 'stateMachine',
    resourceName: stateMachineName,
    arnFormat: ArnFormat.COLON_RESOURCE_NAME,
  }),
  executionArnPattern: stack.formatArn({
    service: 'states',
    resource: 'execution',
    resourceName: `${stateMachineName}:*`,
    arnFormat: ArnFormat.COLON_RESOURCE_NAME,
  }),
});

/** The fixed name: one machine per stack, so the stack name keeps stages apart. */
export const turnMachineName = (stack: Stack): string => `${stack.stackName}-turns`;

/** The remote children's follow state machine (cdk/constructs/follow-state-machine.ts). */
export const followMachineName = (stack: Stack): string => `${stack.stackName}-follow`;
