/**
 * Resolves the CloudFormation intrinsic functions CDK writes into a synthesized template (`Ref`,
 * `Fn::GetAtt`, `Fn::Join`, `Fn::Sub`, `Fn::Select`) to the values they would have in a local,
 * fixed account. Physical names are the logical ids, so a Lambda's ARN is
 * `arn:aws:lambda:<region>:<account>:function:<logicalId>`. Anything else is refused loudly: a
 * silently wrong ARN would route a Task state to the wrong handler.
 */

export interface CloudFormationResource {
  Type: string;
  Properties?: Record<string, unknown>;
  Metadata?: Record<string, unknown>;
  [other: string]: unknown;
}

export interface CloudFormationTemplate {
  Resources?: Record<string, CloudFormationResource>;
  Parameters?: Record<string, { Default?: unknown; [other: string]: unknown }>;
  [other: string]: unknown;
}

export interface LocalAccount {
  region: string;
  accountId: string;
  partition: string;
  urlSuffix: string;
  stackName: string;
}

export const DEFAULT_LOCAL_ACCOUNT: LocalAccount = {
  region: 'us-east-1',
  accountId: '000000000000',
  partition: 'aws',
  urlSuffix: 'amazonaws.com',
  stackName: 'local',
};

export interface ResolveEnv {
  template: CloudFormationTemplate;
  account: LocalAccount;
  /** Values for the template's `Parameters`; a parameter's `Default` otherwise. */
  parameters: Record<string, unknown>;
  /** Told of every string that names a Lambda function (its ARN or its name). */
  onLambdaRef: (value: string, logicalId: string) => void;
}

const LAMBDA_FUNCTION = 'AWS::Lambda::Function';

/** Marks `{ "Ref": "AWS::NoValue" }`: the enclosing key or element is dropped. */
const NO_VALUE = Symbol('AWS::NoValue');

const fail = (path: string, message: string): never => {
  throw new Error(`Cannot resolve ${path}: ${message}`);
};

const resourceOf = (env: ResolveEnv, logicalId: string, path: string): CloudFormationResource =>
  env.template.Resources?.[logicalId] ?? fail(path, `no resource or parameter "${logicalId}"`);

/** `AWS::DynamoDB::Table` → `dynamodb`: the ARN service segment of a resource type. */
const serviceOf = (type: string): string => (type.split('::')[1] ?? 'unknown').toLowerCase();

/** A resource's name property (`TableName`, `StateMachineName`, ...) resolved, or the logical id. */
export const physicalName = (
  env: ResolveEnv,
  logicalId: string,
  prop: string,
  path = `Resources.${logicalId}.Properties.${prop}`
): string => {
  const value = env.template.Resources?.[logicalId]?.Properties?.[prop];
  if (value === undefined) return logicalId;
  const name = resolveIntrinsics(value, env, path);
  return typeof name === 'string' ? name : logicalId;
};

const lambdaArn = (env: ResolveEnv, logicalId: string): string => {
  const { partition, region, accountId } = env.account;
  const arn = `arn:${partition}:lambda:${region}:${accountId}:function:${logicalId}`;
  env.onLambdaRef(arn, logicalId);
  return arn;
};

const refPseudo = (env: ResolveEnv, name: string): string | typeof NO_VALUE | undefined => {
  const { partition, region, accountId, urlSuffix, stackName } = env.account;
  switch (name) {
    case 'AWS::Partition':
      return partition;
    case 'AWS::Region':
      return region;
    case 'AWS::AccountId':
      return accountId;
    case 'AWS::URLSuffix':
      return urlSuffix;
    case 'AWS::StackName':
      return stackName;
    case 'AWS::StackId':
      return `arn:${partition}:cloudformation:${region}:${accountId}:stack/${stackName}/00000000-0000-0000-0000-000000000000`;
    case 'AWS::NoValue':
      return NO_VALUE;
    default:
      return undefined;
  }
};

const ref = (env: ResolveEnv, name: string, path: string): unknown => {
  const pseudo = refPseudo(env, name);
  if (pseudo !== undefined) return pseudo;
  if (name.startsWith('AWS::')) return fail(path, `unsupported pseudo parameter ${name}`);
  if (name in env.parameters) return env.parameters[name];
  const parameter = env.template.Parameters?.[name];
  if (parameter) {
    if (parameter.Default === undefined) fail(path, `parameter ${name} has no value`);
    return parameter.Default;
  }
  const resource = resourceOf(env, name, path);
  const { partition, region, accountId, urlSuffix } = env.account;
  switch (resource.Type) {
    case LAMBDA_FUNCTION:
      // Ref gives the function name; Step Functions accepts a name as FunctionName too.
      env.onLambdaRef(name, name);
      return name;
    case 'AWS::StepFunctions::StateMachine':
      return `arn:${partition}:states:${region}:${accountId}:stateMachine:${physicalName(env, name, 'StateMachineName')}`;
    case 'AWS::SNS::Topic':
      return `arn:${partition}:sns:${region}:${accountId}:${name}`;
    case 'AWS::SQS::Queue':
      return `https://sqs.${region}.${urlSuffix}/${accountId}/${physicalName(env, name, 'QueueName')}`;
    case 'AWS::DynamoDB::Table':
    case 'AWS::DynamoDB::GlobalTable':
      return physicalName(env, name, 'TableName');
    default:
      return name;
  }
};

const getAtt = (env: ResolveEnv, logicalId: string, attribute: string, path: string): string => {
  const resource = resourceOf(env, logicalId, path);
  const { partition, region, accountId } = env.account;
  const arnPrefix = `arn:${partition}:${serviceOf(resource.Type)}:${region}:${accountId}`;
  switch (`${resource.Type}.${attribute}`) {
    case `${LAMBDA_FUNCTION}.Arn`:
      return lambdaArn(env, logicalId);
    case 'AWS::DynamoDB::Table.Arn':
    case 'AWS::DynamoDB::GlobalTable.Arn':
      return `${arnPrefix}:table/${physicalName(env, logicalId, 'TableName')}`;
    case 'AWS::DynamoDB::Table.StreamArn':
    case 'AWS::DynamoDB::GlobalTable.StreamArn':
      return `${arnPrefix}:table/${physicalName(env, logicalId, 'TableName')}/stream/local`;
    case 'AWS::StepFunctions::StateMachine.Arn':
      return `${arnPrefix}:stateMachine:${physicalName(env, logicalId, 'StateMachineName')}`;
    case 'AWS::StepFunctions::StateMachine.Name':
      return physicalName(env, logicalId, 'StateMachineName');
    case 'AWS::SQS::Queue.Arn':
      return `${arnPrefix}:${physicalName(env, logicalId, 'QueueName')}`;
    case 'AWS::IAM::Role.Arn':
      return `arn:${partition}:iam::${accountId}:role/${logicalId}`;
    default:
      if (attribute === 'Arn') return `${arnPrefix}:${logicalId}`;
      return fail(path, `unsupported attribute ${resource.Type}.${attribute} of ${logicalId}`);
  }
};

const asString = (value: unknown, path: string): string => {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return fail(path, `expected a string, got ${JSON.stringify(value)}`);
};

/** `Fn::Sub`: `${Name}` is a variable, a Ref or `Logical.Attr`; `${!Literal}` stays `${Literal}`. */
const sub = (env: ResolveEnv, args: unknown, path: string): string => {
  const [text, rawVars] = Array.isArray(args) ? args : [args, {}];
  if (typeof text !== 'string') return fail(path, 'Fn::Sub needs a string');
  const vars = resolveIntrinsics(rawVars ?? {}, env, `${path}[1]`) as Record<string, unknown>;
  return text.replace(/\$\{([^}]*)\}/g, (_whole, name: string) => {
    if (name.startsWith('!')) return `\${${name.slice(1)}}`;
    if (name in vars) return asString(vars[name], `${path}.\${${name}}`);
    const dot = name.indexOf('.');
    if (dot > 0 && !name.startsWith('AWS::')) {
      return getAtt(env, name.slice(0, dot), name.slice(dot + 1), path);
    }
    return asString(ref(env, name, path), `${path}.\${${name}}`);
  });
};

const intrinsic = (env: ResolveEnv, key: string, args: unknown, path: string): unknown => {
  const at = `${path}.${key}`;
  switch (key) {
    case 'Ref':
      return ref(env, asString(args, at), at);
    case 'Fn::GetAtt': {
      const [logicalId, attribute] = Array.isArray(args)
        ? args.map((part) => asString(resolveIntrinsics(part, env, at), at))
        : asString(args, at).split(/\.(.*)/s);
      if (!logicalId || !attribute) return fail(at, 'Fn::GetAtt needs [LogicalId, Attribute]');
      return getAtt(env, logicalId, attribute, at);
    }
    case 'Fn::Join': {
      const [delimiter, parts] = Array.isArray(args) ? args : [];
      const resolved = resolveIntrinsics(parts, env, at);
      if (typeof delimiter !== 'string' || !Array.isArray(resolved)) {
        return fail(at, 'Fn::Join needs [delimiter, [parts]]');
      }
      return resolved.map((part, i) => asString(part, `${at}[${i}]`)).join(delimiter);
    }
    case 'Fn::Sub':
      return sub(env, args, at);
    case 'Fn::Select': {
      const [index, list] = Array.isArray(args) ? args : [];
      const items = resolveIntrinsics(list, env, at);
      const i = Number(resolveIntrinsics(index, env, at));
      if (!Array.isArray(items) || !Number.isInteger(i) || i < 0 || i >= items.length) {
        return fail(at, 'Fn::Select needs [index, list] with the index in range');
      }
      return items[i];
    }
    default:
      return fail(at, `unsupported intrinsic ${key}`);
  }
};

/** Resolves every intrinsic inside `value`; plain JSON passes through unchanged. */
export function resolveIntrinsics(value: unknown, env: ResolveEnv, path = '$'): unknown {
  if (Array.isArray(value)) {
    return value
      .map((item, i) => resolveIntrinsics(item, env, `${path}[${i}]`))
      .filter((item) => item !== NO_VALUE);
  }
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value);
  const [first] = entries;
  if (entries.length === 1 && first && (first[0] === 'Ref' || first[0].startsWith('Fn::'))) {
    return intrinsic(env, first[0], first[1], path);
  }
  const out: Record<string, unknown> = {};
  for (const [key, item] of entries) {
    const resolved = resolveIntrinsics(item, env, `${path}.${key}`);
    if (resolved !== NO_VALUE) out[key] = resolved;
  }
  return out;
}
