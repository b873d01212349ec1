/**
 * The web renderer in the cloud: web/dist in a private S3 bucket, served by CloudFront through
 * origin access control (the bucket has no public access and answers CloudFront alone), with the
 * page's security headers (a CSP that lets it call the A2A API and the user pool's domain, HSTS,
 * no framing). Beside the page, `config.json` says where the API is and how to sign in: the user
 * pool's hosted UI with a public app client (authorization code with PKCE) whose callback is this
 * distribution. The API lets the distribution's origin call it (CORS).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  HttpVersion,
  PriceClass,
  ResponseHeadersPolicy,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { type CfnUserPoolClient, OAuthScope, type UserPoolClient } from 'aws-cdk-lib/aws-cognito';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { Asset } from 'aws-cdk-lib/aws-s3-assets';
import { BucketDeployment, CacheControl, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import { type WebConfig, WebConfigSchema } from '../../functions/core/a2a/web-config.schema.js';
import { contentSecurityPolicy, WEB_HEADERS } from '../../functions/view/security-headers.js';
import type { A2aAuth } from './a2a-auth.js';
import { acknowledge, wildcardResourceFinding } from './nag.js';

/** The built page (`npm run web:build`; `npx cdk synth` and `deploy` build it first). */
export const WEB_DIST = fileURLToPath(new URL('../../web/dist', import.meta.url));

/** A signed-in person's refresh token lasts a working day; the access token an hour. */
export const WEB_SESSION = { access: Duration.hours(1), refresh: Duration.hours(12) } as const;

export interface WebAppProps {
  /** The A2A base URL the page calls (`https://<api>.execute-api.<region>.<suffix>/<stage>`). */
  readonly apiUrl: string;
  /** The API's origin, for the page's CSP (`https://<api>.execute-api.<region>.<suffix>`). */
  readonly apiOrigin: string;
  readonly auth: A2aAuth;
  /** The access-token claim that names the participant (TINY_HARNESS_PARTICIPANT_CLAIM). */
  readonly participantClaim: string;
  /** @default web/dist */
  readonly distDir?: string;
}

export class WebApp extends Construct {
  readonly bucket: Bucket;
  readonly distribution: Distribution;
  /** `https://<distribution domain>`: the page's origin. */
  readonly origin: string;
  readonly client: UserPoolClient;
  readonly config: WebConfig;

  constructor(scope: Construct, id: string, props: WebAppProps) {
    super(scope, id);
    const logs = new Bucket(this, 'AccessLogs', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      // CloudFront's standard logs are written with an ACL.
      objectOwnership: ObjectOwnership.OBJECT_WRITER,
      lifecycleRules: [{ expiration: Duration.days(90) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.bucket = new Bucket(this, 'Site', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      serverAccessLogsBucket: logs,
      serverAccessLogsPrefix: 'site/',
      // Kept when the stack is deleted, like the table (emptying it on deletion would take a
      // provider function with an AWS managed policy); docs/web.md says how to remove it.
      removalPolicy: RemovalPolicy.RETAIN,
    });

    const domain = props.auth.domain.baseUrl();
    const headers = new ResponseHeadersPolicy(this, 'Headers', {
      comment: 'tiny-harness web renderer: CSP, HSTS, no framing, no sniffing, no referrer',
      securityHeadersBehavior: {
        contentSecurityPolicy: {
          contentSecurityPolicy: contentSecurityPolicy({ connectTo: [props.apiOrigin, domain] }),
          override: true,
        },
        strictTransportSecurity: {
          accessControlMaxAge: Duration.days(365),
          includeSubdomains: true,
          override: true,
        },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
        referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.NO_REFERRER, override: true },
      },
      customHeadersBehavior: {
        customHeaders: (['Cross-Origin-Opener-Policy', 'Permissions-Policy'] as const).map(
          (header) => ({ header, value: WEB_HEADERS[header], override: true })
        ),
      },
    });
    this.distribution = new Distribution(this, 'Distribution', {
      comment: `tiny-harness web renderer (${Stack.of(this).stackName})`,
      defaultRootObject: 'index.html',
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: headers,
        compress: true,
      },
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_100,
      enableLogging: true,
      logBucket: logs,
      logFilePrefix: 'cloudfront/',
    });
    this.origin = `https://${this.distribution.distributionDomainName}`;

    // The page signs people in through the hosted UI: a public client (no secret in a page),
    // authorization code with PKCE, coming back to this distribution.
    this.client = props.auth.userPool.addClient('WebClient', {
      userPoolClientName: 'tiny-harness web renderer',
      generateSecret: false,
      oAuth: {
        flows: { authorizationCodeGrant: true },
        scopes: [OAuthScope.OPENID, props.auth.a2aOAuthScope],
        callbackUrls: [`${this.origin}/`],
        logoutUrls: [`${this.origin}/`],
      },
      authFlows: {},
      accessTokenValidity: WEB_SESSION.access,
      idTokenValidity: WEB_SESSION.access,
      refreshTokenValidity: WEB_SESSION.refresh,
      enableTokenRevocation: true,
      preventUserExistenceErrors: true,
    });
    // Sign-in is the hosted UI's alone; the page only refreshes its tokens (CDK leaves the flows
    // unset for `authFlows: {}`, which Cognito reads as SRP and custom authentication too).
    (this.client.node.defaultChild as CfnUserPoolClient).explicitAuthFlows = [
      'ALLOW_REFRESH_TOKEN_AUTH',
    ];

    this.config = WebConfigSchema.parse({
      api_url: props.apiUrl,
      auth: {
        kind: 'cognito',
        domain,
        client_id: this.client.userPoolClientId,
        scopes: ['openid', ...props.auth.scopes],
        participant_claim: props.participantClaim,
      },
    } satisfies WebConfig);

    const dist = props.distDir ?? WEB_DIST;
    if (existsSync(join(dist, 'index.html'))) this.#deploy(dist);
    else if (Stack.of(this).bundlingRequired) {
      throw new Error(
        `the web renderer is not built (${dist} has no index.html): run npm run web:build`
      );
    }
    // Else a template read without bundling (npm start, most tests): no files to deploy.

    this.#acknowledgeFindings(logs);
  }

  /**
   * Copies web/dist into the bucket. CDK's deployment function runs with a role of our own that
   * may do exactly this: read the deployment's files in the assets bucket, list, write and delete
   * objects of the site bucket, and invalidate this distribution (CDK's default role would hold
   * wildcard actions and a managed policy).
   */
  #deploy(dist: string): void {
    const assetFiles = new Asset(this, 'AssetFiles', { path: join(dist, 'assets') });
    const pageFiles = new Asset(this, 'PageFiles', {
      path: dist,
      exclude: ['assets', 'assets/**'],
    });
    const logGroup = new LogGroup(this, 'DeployLogs', { retention: RetentionDays.ONE_MONTH });
    const role = new Role(this, 'DeployRole', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: 'tiny-harness: copies the web renderer into its bucket',
    });
    logGroup.grantWrite(role);
    const stack = Stack.of(this);
    const assetObjects = pageFiles.bucket.arnForObjects('*');
    const siteObjects = this.bucket.arnForObjects('*');
    role.addToPolicy(new PolicyStatement({ actions: ['s3:GetObject'], resources: [assetObjects] }));
    role.addToPolicy(
      new PolicyStatement({ actions: ['s3:ListBucket'], resources: [this.bucket.bucketArn] })
    );
    role.addToPolicy(
      new PolicyStatement({
        actions: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'],
        resources: [siteObjects],
      })
    );
    role.addToPolicy(
      new PolicyStatement({
        actions: ['cloudfront:CreateInvalidation', 'cloudfront:GetInvalidation'],
        resources: [
          stack.formatArn({
            service: 'cloudfront',
            region: '',
            resource: 'distribution',
            resourceName: this.distribution.distributionId,
          }),
        ],
      })
    );
    acknowledge(
      role,
      wildcardResourceFinding(this, assetObjects),
      "The deployment reads its own files (the page and its assets, zipped by CDK) from the bootstrap assets bucket; their keys are content hashes CDK chooses, so the grant names the bucket's objects, read only."
    );
    acknowledge(
      role,
      wildcardResourceFinding(this, siteObjects),
      "The deployment writes, and for the page prunes, the web renderer's own files: the objects of its site bucket and of no other."
    );
    // The function reads nothing else: grants made through the immutable view are dropped.
    const deployment = { role: role.withoutPolicyUpdates(), logGroup, memoryLimit: 256 };
    // Hashed assets are immutable; the page and its configuration are checked on every load.
    const assets = new BucketDeployment(this, 'Assets', {
      ...deployment,
      sources: [Source.bucket(assetFiles.bucket, assetFiles.s3ObjectKey)],
      destinationBucket: this.bucket,
      destinationKeyPrefix: 'assets/',
      // Pages still open keep loading the assets of the build they came with.
      prune: false,
      cacheControl: [CacheControl.fromString('public, max-age=31536000, immutable')],
    });
    const page = new BucketDeployment(this, 'Page', {
      ...deployment,
      sources: [
        Source.bucket(pageFiles.bucket, pageFiles.s3ObjectKey),
        Source.jsonData('config.json', this.config),
      ],
      destinationBucket: this.bucket,
      exclude: ['assets/*'],
      cacheControl: [CacheControl.fromString('no-cache')],
      distribution: this.distribution,
      distributionPaths: ['/', '/index.html', '/config.json'],
    });
    page.node.addDependency(assets);
    // CDK's deployment function is a singleton of the stack, created with the first deployment.
    for (const child of stack.node.children) {
      if (!child.node.id.startsWith('Custom::CDKBucketDeployment')) continue;
      acknowledge(
        child,
        'AwsSolutions-L1',
        "CDK's own function that copies the web renderer into its bucket: aws-cdk-lib chooses its Python runtime and updates it with the library, not this app."
      );
    }
  }

  #acknowledgeFindings(logs: Bucket): void {
    acknowledge(
      logs,
      'AwsSolutions-S1',
      'This is the access-log bucket of the web renderer (its bucket and its distribution log here); logging it into itself would loop.'
    );
    const distribution = this.distribution;
    acknowledge(
      distribution,
      'AwsSolutions-CFR1',
      'The web renderer is a static page for the participants of tasks, wherever they are; the API behind it authenticates every call.'
    );
    acknowledge(
      distribution,
      'AwsSolutions-CFR2',
      'The distribution serves static files only (no data, no credentials); the A2A API it calls has its own WAF web ACL with per-caller rate rules (cdk/constructs/a2a-rate-limit.ts).'
    );
    acknowledge(
      distribution,
      'AwsSolutions-CFR4',
      "The distribution uses CloudFront's default certificate (no custom domain is configured), with which CloudFront negotiates TLSv1 as its minimum; the viewer protocol policy redirects all HTTP to HTTPS and HSTS is set."
    );
  }
}
