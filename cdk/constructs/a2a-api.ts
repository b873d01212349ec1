/**
 * The A2A surface: a REST API in front of A2aFunction. The agent card, the JSON-RPC
 * binding (POST /) and the HTTP+JSON binding ({proxy+}) all reach the one function, which
 * routes, validates (zod) and answers with A2A's own error shapes.
 *
 * Every method but the agent card requires a verified access token with the A2A scope (A2A §7:
 * the server authenticates every request); the card is public (§8.2), since it is how a client
 * learns how to authenticate.
 */
import { Duration, Stack, Validations } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  AuthorizationType,
  type CfnGatewayResponse,
  EndpointType,
  type GatewayResponse,
  type IAuthorizer,
  LambdaIntegration,
  LogGroupLogDestination,
  MethodLoggingLevel,
  type MethodOptions,
  ResponseTransferMode,
  ResponseType,
  RestApi,
} from 'aws-cdk-lib/aws-apigateway';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { REMOTE_PUSH_PREFIX } from '../../functions/core/remote/webhook-path.js';
import { A2aRateLimit } from './a2a-rate-limit.js';

export const AGENT_CARD_PATH = ['.well-known', 'agent-card.json'] as const;

/**
 * Per-method steady rate and burst (requests per second) for the stage: a ceiling for all
 * callers together. One caller is limited by the WAF rate rules of `A2aRateLimit`.
 */
export const THROTTLING = { rateLimit: 50, burstLimit: 100 } as const;

/** How long API Gateway keeps a streamed answer open: the stream mode's maximum. */
export const STREAM_TIMEOUT = Duration.minutes(15);

/** The challenge a 401 carries (RFC 6750 §3), as the A2A function's own 401 does. */
export const WWW_AUTHENTICATE = 'Bearer realm="tiny-harness"';

export interface A2aApiProps {
  readonly handler: IFunction;
  /** Our webhook for remote agents' pushes about our children (`POST /remote-agents/push/...`). */
  readonly remotePushHandler: IFunction;
  /** The API Gateway stage name (the deployment's stage). */
  readonly stageName: string;
  /** Verifies the caller's token on every method but the agent card. */
  readonly auth: {
    readonly authorizer: IAuthorizer;
    /** Scopes the access token must carry (so API Gateway takes access tokens, not ID tokens). */
    readonly scopes: readonly string[];
  };
  /** Requests one caller may make a minute (a WAF rate rule on the stage). */
  readonly callerRequestsPerMinute: number;
  /** @default one month */
  readonly logRetention?: RetentionDays;
}

/** Request headers an A2A client in a browser sends (the SDK's, and SSE's resumption). */
export const BROWSER_REQUEST_HEADERS = [
  'Authorization',
  'Content-Type',
  'A2A-Version',
  'A2A-Extensions',
  'Last-Event-ID',
] as const;

export class A2aApi extends Construct {
  readonly restApi: RestApi;
  readonly #proxy: ReturnType<RestApi['root']['addResource']>;
  readonly #unauthorized: GatewayResponse;
  readonly #rateLimit: A2aRateLimit;
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

    // Stream mode: SendStreamingMessage and SubscribeToTask answer Server-Sent Events as the
    // function writes them (Lambda response streaming), for up to 15 minutes; a one-shot answer
    // is a short stream. Console test-invoke permissions are left out: one invoke permission per
    // method is enough.
    const integration = new LambdaIntegration(props.handler, {
      allowTestInvoke: false,
      responseTransferMode: ResponseTransferMode.STREAM,
      timeout: STREAM_TIMEOUT,
    });
    const authenticated: MethodOptions = {
      authorizationType: AuthorizationType.COGNITO,
      authorizer: props.auth.authorizer,
      authorizationScopes: [...props.auth.scopes],
    };
    const root = this.restApi.root;
    root.addMethod('POST', integration, authenticated);
    const card = root
      .addResource(AGENT_CARD_PATH[0])
      .addResource(AGENT_CARD_PATH[1])
      .addMethod('GET', integration, { authorizationType: AuthorizationType.NONE });
    this.#proxy = root.addResource('{proxy+}');
    this.#proxy.addMethod('ANY', integration, authenticated);
    // A remote agent knows no Cognito token of ours: a push is authenticated by the token we
    // generated for that one child, which the function checks (against its hash) before anything.
    const [, remoteAgents = '', push = ''] = REMOTE_PUSH_PREFIX.split('/');
    const remotePush = root
      .addResource(remoteAgents)
      .addResource(push)
      .addResource('{parentId}')
      .addResource('{linkId}')
      .addMethod(
        'POST',
        new LambdaIntegration(props.remotePushHandler, { allowTestInvoke: false }),
        { authorizationType: AuthorizationType.NONE }
      );

    // API Gateway's own 401 (no token, a bad one, a missing scope) says how to authenticate.
    this.#unauthorized = this.restApi.addGatewayResponse('Unauthorized', {
      type: ResponseType.UNAUTHORIZED,
      responseHeaders: { 'WWW-Authenticate': `'${WWW_AUTHENTICATE}'` },
    });

    this.#rateLimit = new A2aRateLimit(this, 'RateLimit', {
      stage: this.restApi.deploymentStage,
      requestsPerMinute: props.callerRequestsPerMinute,
    });

    const stack = Stack.of(this);
    this.baseUrl = `https://${this.restApi.restApiId}.execute-api.${stack.region}.${stack.urlSuffix}/${props.stageName}`;

    this.#acknowledgeFindings(card, remotePush);
  }

  /**
   * Lets pages of `origin` (the web renderer, `https://<distribution>`) call the API: API Gateway
   * answers their preflight (OPTIONS, which a browser sends without credentials, so it cannot be
   * authorized), and its own refusals (401, 403, 429, 5xx) carry the origin so the page can read
   * them. The A2A function names the origin on its answers (TINY_HARNESS_WEB_ORIGIN).
   */
  allowBrowserOrigin(origin: string): void {
    this.#rateLimit.allowBrowserOrigin(origin);
    const preflight = {
      allowOrigins: [origin],
      allowHeaders: [...BROWSER_REQUEST_HEADERS],
      allowMethods: ['GET', 'POST', 'DELETE', 'OPTIONS'],
      maxAge: Duration.hours(1),
    };
    // The card too: the SDK asks for it with an A2A-Version header, so even that GET is preflighted.
    const methods = [
      this.restApi.root.addCorsPreflight(preflight),
      this.restApi.root.resourceForPath(AGENT_CARD_PATH.join('/')).addCorsPreflight(preflight),
      this.#proxy.addCorsPreflight(preflight),
    ];
    const headers = {
      'Access-Control-Allow-Origin': `'${origin}'`,
      'Access-Control-Expose-Headers': "'Retry-After, WWW-Authenticate'",
      Vary: "'Origin'",
    };
    const unauthorized = this.#unauthorized.node.defaultChild as CfnGatewayResponse;
    unauthorized.responseParameters = {
      ...(unauthorized.responseParameters as Record<string, string>),
      ...Object.fromEntries(
        Object.entries(headers).map(([name, value]) => [`gatewayresponse.header.${name}`, value])
      ),
    };
    this.restApi.addGatewayResponse('Default4xx', {
      type: ResponseType.DEFAULT_4XX,
      responseHeaders: headers,
    });
    this.restApi.addGatewayResponse('Default5xx', {
      type: ResponseType.DEFAULT_5XX,
      responseHeaders: headers,
    });
    const reason =
      'The CORS preflight of the web renderer: a browser sends OPTIONS without credentials, so it cannot be authorized; API Gateway answers it itself (a mock integration) and it reaches no function and no data.';
    for (const method of methods) {
      Validations.of(method).acknowledge(
        { id: 'AwsSolutions-APIG4', reason },
        { id: 'AwsSolutions-COG4', reason }
      );
    }
  }

  #acknowledgeFindings(card: Construct, remotePush: Construct): void {
    const cloudWatchRole = this.restApi.node.tryFindChild('CloudWatchRole');
    if (cloudWatchRole === undefined) throw new Error('RestApi created no CloudWatchRole');
    Validations.of(cloudWatchRole).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
      reason:
        "API Gateway's account-level CloudWatch role needs exactly this AWS managed policy for execution logging (AwsSolutions-APIG6); it allows log writes only.",
    });
    // Only the card's GET (and the remote push webhook, below): every other method has the
    // Cognito authorizer, and a new method without one fails synthesis.
    const publicCard =
      'The agent card is public by the A2A specification (§8.2, §14.3): it is how a client learns the security schemes it must use, so it cannot itself require them. It carries no task data.';
    Validations.of(card).acknowledge(
      { id: 'AwsSolutions-APIG4', reason: publicCard },
      { id: 'AwsSolutions-COG4', reason: publicCard }
    );
    const pushToken =
      "A remote agent's push about one of our children carries the token generated for that child (A2A §4.3.3, X-A2A-Notification-Token); the function compares its SHA-256 with the child's link before it reads anything, and answers an unknown child as a wrong token (401). A remote agent has no identity in our user pool to authorize with.";
    Validations.of(remotePush).acknowledge(
      { id: 'AwsSolutions-APIG4', reason: pushToken },
      { id: 'AwsSolutions-COG4', reason: pushToken }
    );
    Validations.of(this).acknowledge({
      id: 'AwsSolutions-APIG2',
      reason:
        'Requests are validated with zod inside the A2A function, which must answer with A2A/JSON-RPC error objects; an API Gateway request validator would answer with its own shape instead.',
    });
  }
}
