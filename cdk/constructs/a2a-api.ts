/**
 * The A2A surface (DESIGN §5): a REST API in front of A2aFunction. The agent card, the JSON-RPC
 * binding (POST /) and the HTTP+JSON binding ({proxy+}) all reach the one function, which
 * routes, validates (zod) and answers with A2A's own error shapes.
 */
import { Stack, Validations } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  EndpointType,
  LambdaIntegration,
  LogGroupLogDestination,
  MethodLoggingLevel,
  RestApi,
} from 'aws-cdk-lib/aws-apigateway';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

export const AGENT_CARD_PATH = ['.well-known', 'agent-card.json'] as const;

/** Per-method steady rate and burst (requests per second) until per-client quotas exist. */
export const THROTTLING = { rateLimit: 50, burstLimit: 100 } as const;

export interface A2aApiProps {
  readonly handler: IFunction;
  /** The API Gateway stage name (the deployment's stage). */
  readonly stageName: string;
  /** @default one month */
  readonly logRetention?: RetentionDays;
}

export class A2aApi extends Construct {
  readonly restApi: RestApi;
  /**
   * `https://<api id>.execute-api.<region>.<suffix>/<stage>`, built from the API id and the
   * literal stage name: `restApi.url` references the stage, which depends on the methods, which
   * depend on the function, so a function that needs its own URL could not use it.
   */
  readonly baseUrl: string;

  constructor(scope: Construct, id: string, props: A2aApiProps) {
    super(scope, id);
    const accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
    });
    this.restApi = new RestApi(this, 'RestApi', {
      description: 'tiny-harness A2A 1.0 endpoint (agent card, JSON-RPC, HTTP+JSON)',
      endpointTypes: [EndpointType.REGIONAL],
      // Execution logging needs the account-level CloudWatch role (AWS::ApiGateway::Account).
      cloudWatchRole: true,
      deployOptions: {
        stageName: props.stageName,
        accessLogDestination: new LogGroupLogDestination(accessLogs),
        accessLogFormat: AccessLogFormat.jsonWithStandardFields(),
        tracingEnabled: true,
        metricsEnabled: true,
        // Errors only, and never bodies: messages are the participants' data.
        loggingLevel: MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
        throttlingRateLimit: THROTTLING.rateLimit,
        throttlingBurstLimit: THROTTLING.burstLimit,
      },
    });

    // Console test-invoke permissions are left out: one invoke permission per method is enough.
    const integration = new LambdaIntegration(props.handler, { allowTestInvoke: false });
    const root = this.restApi.root;
    root.addMethod('POST', integration);
    root
      .addResource(AGENT_CARD_PATH[0])
      .addResource(AGENT_CARD_PATH[1])
      .addMethod('GET', integration);
    root.addResource('{proxy+}').addMethod('ANY', integration);

    const stack = Stack.of(this);
    this.baseUrl = `https://${this.restApi.restApiId}.execute-api.${stack.region}.${stack.urlSuffix}/${props.stageName}`;

    this.#acknowledgeFindings();
  }

  #acknowledgeFindings(): void {
    const cloudWatchRole = this.restApi.node.tryFindChild('CloudWatchRole');
    if (cloudWatchRole === undefined) throw new Error('RestApi created no CloudWatchRole');
    Validations.of(cloudWatchRole).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
      reason:
        "API Gateway's account-level CloudWatch role needs exactly this AWS managed policy for execution logging (AwsSolutions-APIG6); it allows log writes only.",
    });
    const authLater =
      'Authorization (a Cognito JWT or IAM authorizer whose principal maps to a participant id) comes with a later issue; until it lands, a deployed stage must not be exposed to untrusted callers (docs/deploy.md).';
    Validations.of(this).acknowledge(
      { id: 'AwsSolutions-APIG4', reason: authLater },
      { id: 'AwsSolutions-COG4', reason: authLater },
      {
        id: 'AwsSolutions-APIG2',
        reason:
          'Requests are validated with zod inside the A2A function, which must answer with A2A/JSON-RPC error objects; an API Gateway request validator would answer with its own shape instead.',
      },
      {
        id: 'AwsSolutions-APIG3',
        reason:
          'WAF is a per-deployment choice (a web ACL costs money in every stage); stage throttling bounds request rates, and a web ACL can be associated with the stage without changing this stack.',
      }
    );
  }
}
