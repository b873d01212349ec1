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

/** WAF's fixed windows; a minute matches the local shim's "requests a minute". */
export const RATE_WINDOW_SECONDS = 60;
/**
 * Callers without a token (the agent card, a refused request) share their address's budget, and
 * an address may front many callers (a NAT), so it gets several callers' worth.
 */
export const CALLERS_PER_ADDRESS = 10;

export const THROTTLED_BODY = '{"error":"too many requests"}';

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

/** Blocked requests get 429 with Retry-After, as the local shim answers. */
const throttled = (
  responseHeaders: CfnWebACL.CustomHTTPHeaderProperty[]
): CfnWebACL.RuleActionProperty => ({
  block: {
    customResponse: { responseCode: 429, customResponseBodyKey: 'throttled', responseHeaders },
  },
});

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
      customResponseBodies: {
        throttled: { contentType: 'APPLICATION_JSON', content: THROTTLED_BODY },
      },
      rules: [
        {
          name: 'PerCaller',
          priority: 0,
          action: throttled(this.#headers),
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
          action: throttled(this.#headers),
          visibilityConfig: visibility(`${prefix}PerAddress`),
          statement: {
            rateBasedStatement: {
              limit: props.requestsPerMinute * CALLERS_PER_ADDRESS,
              evaluationWindowSec: RATE_WINDOW_SECONDS,
              aggregateKeyType: 'IP',
            },
          },
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
