/**
 * Pulls the state machine definitions out of a synthesized CloudFormation template
 * (`cdk.out/<stack>.template.json`), so the local runtime runs the very ASL that `cdk deploy`
 * ships. CDK writes `DefinitionString` as an `Fn::Join` of JSON text and `Fn::GetAtt`/`Ref`
 * pieces; `DefinitionSubstitutions` (and the object form `Definition`) are honoured too.
 */
import { type AslMachine, isAslMachine } from './asl-walk.js';
import {
  type CloudFormationTemplate,
  DEFAULT_LOCAL_ACCOUNT,
  type LocalAccount,
  physicalName,
  type ResolveEnv,
  resolveIntrinsics,
} from './cfn-intrinsics.js';

export type { CloudFormationTemplate } from './cfn-intrinsics.js';

export interface ExtractedStateMachine {
  logicalId: string;
  /** `StateMachineName` if the template sets one, else the logical id: create it under this name. */
  name: string;
  /** `Metadata["aws:cdk:path"]` without the L1 `/Resource` leaf, e.g. `Stack/TurnMachine`. */
  constructPath: string;
  definition: AslMachine;
  /** Every string the ASL uses to name a Lambda (ARN or name) → the function's logical id. */
  lambdaRefs: Record<string, string>;
}

export interface ExtractOptions {
  account?: Partial<LocalAccount>;
  /** Values for template `Parameters` (CDK's asset and bootstrap parameters, if referenced). */
  parameters?: Record<string, unknown>;
}

const STATE_MACHINE = 'AWS::StepFunctions::StateMachine';

const constructPathOf = (metadata: Record<string, unknown> | undefined, logicalId: string) => {
  const path = metadata?.['aws:cdk:path'];
  return typeof path === 'string' ? path.replace(/\/Resource$/, '') : logicalId;
};

/** CloudFormation's textual `${key}` replacement, applied before the definition is parsed. */
const substitute = (text: string, substitutions: Record<string, unknown>, logicalId: string) =>
  text.replace(/\$\{([^}]+)\}/g, (whole, key: string) => {
    if (!(key in substitutions)) return whole;
    const value = substitutions[key];
    if (typeof value === 'object' && value !== null) {
      throw new Error(`${logicalId}: DefinitionSubstitutions.${key} did not resolve to a scalar`);
    }
    return String(value);
  });

export function extractStateMachines(
  template: CloudFormationTemplate,
  options: ExtractOptions = {}
): ExtractedStateMachine[] {
  const account = { ...DEFAULT_LOCAL_ACCOUNT, ...options.account };
  const machines: ExtractedStateMachine[] = [];
  for (const [logicalId, resource] of Object.entries(template.Resources ?? {})) {
    if (resource.Type !== STATE_MACHINE) continue;
    const lambdaRefs: Record<string, string> = {};
    const env: ResolveEnv = {
      template,
      account,
      parameters: options.parameters ?? {},
      onLambdaRef: (value, lambdaId) => {
        lambdaRefs[value] = lambdaId;
      },
    };
    const props = resource.Properties ?? {};
    const at = `Resources.${logicalId}.Properties`;
    const raw =
      props.DefinitionString !== undefined
        ? resolveIntrinsics(props.DefinitionString, env, `${at}.DefinitionString`)
        : JSON.stringify(props.Definition ?? null);
    if (typeof raw !== 'string') throw new Error(`${at}.DefinitionString is not a string`);
    const substitutions = resolveIntrinsics(
      props.DefinitionSubstitutions ?? {},
      env,
      `${at}.DefinitionSubstitutions`
    ) as Record<string, unknown>;
    const definition: unknown = JSON.parse(substitute(raw, substitutions, logicalId));
    if (!isAslMachine(definition)) {
      throw new Error(`${logicalId}: the definition has no StartAt and States`);
    }
    machines.push({
      logicalId,
      name: physicalName(env, logicalId, 'StateMachineName', `${at}.StateMachineName`),
      constructPath: constructPathOf(resource.Metadata, logicalId),
      definition,
      lambdaRefs,
    });
  }
  return machines;
}
