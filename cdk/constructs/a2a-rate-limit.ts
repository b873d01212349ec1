/**
 * Per-client throttling in the cloud: a regional WAF web ACL on the A2A stage with rate-based
 * rules. A REST API limits one caller only through usage plans keyed by API keys, which A2A
 * clients would have to send besides their token (and AWS advises against API keys as identity);
 * WAF can count requests per `Authorization` header instead, which is the caller (docs/identity.md).
 */
import { Stack } from 'aws-cdk-lib';
import type { Stage } from 'aws-cdk-lib/aws-apigateway';
import { CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { tooManyRequests } from '../../functions/handlers/too-many-requests.js';

/** WAF's fixed windows; a minute matches the local shim's "requests a minute". */
export const RATE_WINDOW_SECONDS = 60;
/**
 * Callers without a token (the agent card, a refused request) share their address's budget, and
 * an address may front many callers (a NAT), so it gets several callers' worth.
 */
export const CALLERS_PER_ADDRESS = 10;

/** The label the rate rules put on a request past its limit; the answering rules match it. */
export const THROTTLED_LABEL = 'tiny-harness-throttled';

const THROTTLED_MESSAGE = `too many requests from this caller or address: at most the limit a minute; retry after ${RATE_WINDOW_SECONDS} s`;

/**
 * WAF's 429 bodies, one per binding, as the local endpoint answers its throttle
 * (functions/handlers/too-many-requests.ts): a JSON-RPC error for a JSON-RPC request (its id is
 * not known to a static body: null, as JSON-RPC has it for an unread id) and a google.rpc.Status
 * for HTTP+JSON, both with the same ErrorInfo and RetryInfo.
 */
export const THROTTLED_BODIES = Object.fromEntries(
  (
    [
      ['throttledJsonRpc', { method: 'POST', path: '/' }],
      ['throttledRest', { method: 'GET', path: '/tasks' }],
    ] as const
  ).map(([key, request]) => {
    const answer = tooManyRequests(request, {
      reason: 'RATE_LIMITED',
      message: THROTTLED_MESSAGE,
      retryAfterSeconds: RATE_WINDOW_SECONDS,
    });
    return [key, answer.body];
  })
) as Record<'throttledJsonRpc' | 'throttledRest', string>;

/**
 * A JSON-RPC request is a POST whose body names `"jsonrpc"`; WAF reads the body, not the path,
 * because the path it sees depends on the stage and any custom domain in front.
 */
const JSON_RPC_REQUEST: CfnWebACL.StatementProperty = {
  andStatement: {
    statements: [
      {
        byteMatchStatement: {
          fieldToMatch: { method: {} },
          positionalConstraint: 'EXACTLY',
          searchString: 'POST',
          textTransformations: [{ priority: 0, type: 'NONE' }],
        },
      },
      {
        byteMatchStatement: {
          fieldToMatch: { body: { oversizeHandling: 'CONTINUE' } },
          positionalConstraint: 'CONTAINS',
          searchString: '"jsonrpc"',
          textTransformations: [{ priority: 0, type: 'COMPRESS_WHITE_SPACE' }],
        },
      },
    ],
  },
};

const THROTTLED: CfnWebACL.StatementProperty = {
  labelMatchStatement: { scope: 'LABEL', key: THROTTLED_LABEL },
};

/**
 * The per-caller key is the Authorization header as WAF transforms it: whitespace runs made one
 * space, then lower case. `Bearer abc`, `bearer  abc` and `BEARER ABC` would otherwise each get a
 * bucket of their own, and a caller could multiply its budget by respelling its header. Merging
 * tokens that differ only in case or spacing can only put callers in one bucket, never let a
 * request through: the authorizer still checks the token as it was sent. (HTTP parsers drop a
 * field value's leading and trailing whitespace, RFC 9110 §5.5, so there is nothing to trim.)
 */
export const CALLER_KEY: CfnWebACL.TextTransformationProperty[] = [
  { priority: 0, type: 'COMPRESS_WHITE_SPACE' },
  { priority: 1, type: 'LOWERCASE' },
];

export interface A2aRateLimitProps {
  readonly stage: Stage;
  /** Requests one caller (one Authorization header) may make in a minute; WAF's minimum is 10. */
  readonly requestsPerMinute: number;
}

const visibility = (metricName: string): CfnWebACL.VisibilityConfigProperty => ({
  cloudWatchMetricsEnabled: true,
  metricName,
  sampledRequestsEnabled: true,
});

/** Blocked requests get 429 with Retry-After, in their binding's shape, as the local shim answers. */
const throttled = (
  bodyKey: keyof typeof THROTTLED_BODIES,
  responseHeaders: CfnWebACL.CustomHTTPHeaderProperty[]
): CfnWebACL.RuleActionProperty => ({
  block: {
    customResponse: { responseCode: 429, customResponseBodyKey: bodyKey, responseHeaders },
  },
});

/**
 * A rate rule counts and labels the requests past its limit; the answering rules below block
 * them, each in its binding's shape (a rate rule has one action, so one body).
 */
const counted: CfnWebACL.RuleActionProperty = { count: {} };
const labelled: CfnWebACL.LabelProperty[] = [{ name: THROTTLED_LABEL }];

export class A2aRateLimit extends Construct {
  readonly webAcl: CfnWebACL;
  /** The 429's headers; the rules' actions hold this array, so what is added later is sent. */
  readonly #headers: CfnWebACL.CustomHTTPHeaderProperty[] = [
    { name: 'Retry-After', value: String(RATE_WINDOW_SECONDS) },
  ];

  constructor(scope: Construct, id: string, props: A2aRateLimitProps) {
    super(scope, id);
    const prefix = Stack.of(this).stackName.replace(/[^A-Za-z0-9]/g, '');
    this.webAcl = new CfnWebACL(this, 'WebAcl', {
      scope: 'REGIONAL',
      description: 'tiny-harness: per-caller rate limits on the A2A API',
      defaultAction: { allow: {} },
      visibilityConfig: visibility(`${prefix}A2a`),
      customResponseBodies: Object.fromEntries(
        Object.entries(THROTTLED_BODIES).map(([key, body]) => [
          key,
          { contentType: 'APPLICATION_JSON', content: body },
        ])
      ),
      rules: [
        {
          name: 'PerCaller',
          priority: 0,
          action: counted,
          ruleLabels: labelled,
          visibilityConfig: visibility(`${prefix}PerCaller`),
          statement: {
            rateBasedStatement: {
              limit: props.requestsPerMinute,
              evaluationWindowSec: RATE_WINDOW_SECONDS,
              aggregateKeyType: 'CUSTOM_KEYS',
              // Requests without the header are not counted here; PerAddress bounds them.
              customKeys: [{ header: { name: 'authorization', textTransformations: CALLER_KEY } }],
            },
          },
        },
        {
          name: 'PerAddress',
          priority: 1,
          action: counted,
          ruleLabels: labelled,
          visibilityConfig: visibility(`${prefix}PerAddress`),
          statement: {
            rateBasedStatement: {
              limit: props.requestsPerMinute * CALLERS_PER_ADDRESS,
              evaluationWindowSec: RATE_WINDOW_SECONDS,
              aggregateKeyType: 'IP',
            },
          },
        },
        {
          name: 'ThrottledJsonRpc',
          priority: 2,
          action: throttled('throttledJsonRpc', this.#headers),
          visibilityConfig: visibility(`${prefix}ThrottledJsonRpc`),
          statement: { andStatement: { statements: [THROTTLED, JSON_RPC_REQUEST] } },
        },
        {
          name: 'Throttled',
          priority: 3,
          action: throttled('throttledRest', this.#headers),
          visibilityConfig: visibility(`${prefix}Throttled`),
          statement: THROTTLED,
        },
      ],
    });
    new CfnWebACLAssociation(this, 'Association', {
      resourceArn: props.stage.stageArn,
      webAclArn: this.webAcl.attrArn,
    });
  }

  /**
   * A page of `origin` reads the 429 too (its status and Retry-After), so it waits and retries
   * instead of seeing a network error: WAF answers before API Gateway's CORS can.
   */
  allowBrowserOrigin(origin: string): void {
    this.#headers.push(
      { name: 'Access-Control-Allow-Origin', value: origin },
      { name: 'Access-Control-Expose-Headers', value: 'Retry-After' },
      { name: 'Vary', value: 'Origin' }
    );
  }
}
