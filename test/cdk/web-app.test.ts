/**
 * The web renderer as the CDK app deploys it (cdk/constructs/web-app.ts, docs/web.md): a private
 * bucket behind CloudFront with origin access control and security headers, the hosted UI's
 * public client, the API readable from the distribution's origin (CORS), and, when the page is
 * built, its files and its config.json copied into the bucket by a role that may do only that.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, type CfnElement, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { MockIntegration, RestApi } from 'aws-cdk-lib/aws-apigateway';
import { describe, expect, it } from 'vitest';
import { A2aAuth } from '../../cdk/constructs/a2a-auth.js';
import { ENV } from '../../cdk/constructs/environment.js';
import { WebApp } from '../../cdk/constructs/web-app.js';
import { WebConfigSchema } from '../../functions/core/a2a/web-config.schema.js';
import { REMOTE_PUSH_PREFIX } from '../../functions/core/remote/webhook-path.js';
import {
  flatten,
  logicalIdAt,
  resourceAt,
  statementsOfRole,
  synthHarness,
  TEST_STACK_NAME,
  TEST_STAGE,
  tempOutdir,
} from './support/synth.js';

const { stack, template } = synthHarness();

const distributionId = logicalIdAt(template, 'Web/Distribution');
const siteId = logicalIdAt(template, 'Web/Site');
/** The page's origin, as the template spells it. */
const ORIGIN = `https://<${distributionId}.DomainName>`;
const DISTRIBUTION_ARN = `arn:<AWS::Partition>:cloudfront::<AWS::AccountId>:distribution/<${distributionId}>`;

const a2aEnvironment = () =>
  resourceAt(template, 'A2aFunction').Properties?.Environment as {
    Variables: Record<string, unknown>;
  };
/** `https://<api>.execute-api.<region>.<suffix>`: the origin of the URL the A2A function serves. */
const apiOrigin = () => {
  const base = flatten(a2aEnvironment().Variables[ENV.baseUrl]);
  expect(base.endsWith(`/${TEST_STAGE}`)).toBe(true);
  return base.slice(0, -`/${TEST_STAGE}`.length);
};
/** The user pool's hosted domain, from the token endpoint the stack outputs. */
const cognitoDomain = () => {
  const tokenUrl = flatten(template.toJSON().Outputs.TokenEndpoint.Value);
  expect(tokenUrl).toMatch(
    /^https:\/\/<.+>\.auth\.<AWS::Region>\.amazoncognito\.com\/oauth2\/token$/
  );
  return tokenUrl.replace(/\/oauth2\/token$/, '');
};

interface BucketPolicyStatement {
  Effect: string;
  Principal: unknown;
  Action: string | string[];
  Resource: unknown;
  Condition?: Record<string, Record<string, unknown>>;
}

describe('the site bucket', () => {
  const site = resourceAt(template, 'Web/Site');

  it('blocks all public access, is encrypted, and is kept when the stack is deleted', () => {
    expect(site.Properties?.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(site.Properties?.BucketEncryption).toEqual({
      ServerSideEncryptionConfiguration: [
        { ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } },
      ],
    });
    expect(site.Properties?.WebsiteConfiguration).toBeUndefined();
    // docs/web.md says how to remove it, and its access-log bucket, after cdk destroy.
    expect(site.DeletionPolicy).toBe('Retain');
    expect(resourceAt(template, 'Web/AccessLogs').DeletionPolicy).toBe('Retain');
  });

  it('refuses every request not over TLS, and allows reading objects to this distribution alone', () => {
    const policy = resourceAt(template, 'Web/Site/Policy').Properties!;
    expect(policy.Bucket).toEqual({ Ref: siteId });
    const statements = (policy.PolicyDocument as { Statement: BucketPolicyStatement[] }).Statement;
    const allowed = statements.filter((statement) => statement.Effect === 'Allow');
    const denied = statements.filter((statement) => statement.Effect === 'Deny');
    expect(denied).toEqual([
      {
        Effect: 'Deny',
        Principal: { AWS: '*' },
        Action: 's3:*',
        Resource: [
          { 'Fn::GetAtt': [siteId, 'Arn'] },
          { 'Fn::Join': ['', [{ 'Fn::GetAtt': [siteId, 'Arn'] }, '/*']] },
        ],
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      },
    ]);
    expect(allowed).toHaveLength(1);
    const [cloudFront] = allowed;
    expect(cloudFront?.Principal).toEqual({ Service: 'cloudfront.amazonaws.com' });
    expect(cloudFront?.Action).toBe('s3:GetObject');
    expect(flatten(cloudFront?.Resource)).toBe(`<${siteId}.Arn>/*`);
    expect(Object.keys(cloudFront?.Condition ?? {})).toEqual(['StringEquals']);
    expect(flatten(cloudFront?.Condition?.StringEquals?.['AWS:SourceArn'])).toBe(DISTRIBUTION_ARN);
  });
});

describe('the distribution', () => {
  const config = resourceAt(template, 'Web/Distribution').Properties?.DistributionConfig as {
    Origins: Record<string, unknown>[];
    DefaultCacheBehavior: Record<string, unknown>;
    CacheBehaviors?: unknown[];
    DefaultRootObject: string;
  };

  it('reads the bucket through origin access control (signed requests, no identity, no website)', () => {
    const controls = Object.entries(template.findResources('AWS::CloudFront::OriginAccessControl'));
    expect(controls).toHaveLength(1);
    const [controlId, control] = controls[0]!;
    expect(control.Properties.OriginAccessControlConfig).toMatchObject({
      OriginAccessControlOriginType: 's3',
      SigningBehavior: 'always',
      SigningProtocol: 'sigv4',
    });
    expect(config.Origins).toHaveLength(1);
    expect(config.Origins[0]).toMatchObject({
      DomainName: { 'Fn::GetAtt': [siteId, 'RegionalDomainName'] },
      OriginAccessControlId: { 'Fn::GetAtt': [controlId, 'Id'] },
      S3OriginConfig: { OriginAccessIdentity: '' },
    });
  });

  it('redirects HTTP to HTTPS and gives every file the security headers', () => {
    expect(config.DefaultCacheBehavior).toMatchObject({
      ViewerProtocolPolicy: 'redirect-to-https',
      AllowedMethods: ['GET', 'HEAD'],
      ResponseHeadersPolicyId: { Ref: logicalIdAt(template, 'Web/Headers') },
    });
    // No other behaviour, so no path is served without the headers.
    expect(config.CacheBehaviors).toBeUndefined();
    expect(config.DefaultRootObject).toBe('index.html');
  });

  const security = () =>
    (
      resourceAt(template, 'Web/Headers').Properties!.ResponseHeadersPolicyConfig as {
        SecurityHeadersConfig: Record<string, Record<string, unknown>>;
      }
    ).SecurityHeadersConfig;

  it('has a CSP that lets the page call the A2A API and the sign-in domain, and nothing else', () => {
    const csp = security().ContentSecurityPolicy!;
    expect(csp.Override).toBe(true);
    const directives = new Map(
      flatten(csp.ContentSecurityPolicy)
        .split(';')
        .map((directive) => directive.trim().split(/\s+/))
        .map(([name = '', ...sources]) => [name, sources])
    );
    expect(directives.get('connect-src')).toEqual(["'self'", apiOrigin(), cognitoDomain()]);
    expect(directives.get('default-src')).toEqual(["'none'"]);
    expect(directives.get('script-src')).toEqual(["'self'"]);
    expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
  });

  it('sets HSTS for a year with subdomains, frame DENY, nosniff and no referrer', () => {
    const headers = security();
    expect(headers.StrictTransportSecurity).toMatchObject({
      IncludeSubdomains: true,
      Override: true,
    });
    expect(headers.StrictTransportSecurity?.AccessControlMaxAgeSec).toBeGreaterThanOrEqual(
      365 * 24 * 3600
    );
    expect(headers.FrameOptions).toEqual({ FrameOption: 'DENY', Override: true });
    expect(headers.ContentTypeOptions).toEqual({ Override: true });
    expect(headers.ReferrerPolicy).toEqual({ ReferrerPolicy: 'no-referrer', Override: true });
  });

  it('is the WebUrl the stack outputs', () => {
    expect(flatten(template.toJSON().Outputs.WebUrl.Value)).toBe(`${ORIGIN}/`);
  });
});

describe("the page's sign-in: the hosted UI's web client", () => {
  const client = resourceAt(template, 'A2aAuth/UserPool/WebClient').Properties!;

  it('is public (no secret) and has the authorization code grant only, as PKCE needs', () => {
    expect(client.GenerateSecret).toBe(false);
    expect(client.AllowedOAuthFlows).toEqual(['code']);
    expect(client.AllowedOAuthFlowsUserPoolClient).toBe(true);
    expect(client.SupportedIdentityProviders).toEqual(['COGNITO']);
    // Sign-in goes through the hosted UI; the client may refresh, and sign in no other way.
    expect(client.ExplicitAuthFlows).toEqual(['ALLOW_REFRESH_TOKEN_AUTH']);
  });

  it('asks for openid and the A2A scope, and comes back to the distribution', () => {
    const resourceServer = logicalIdAt(template, 'A2aAuth/UserPool/ResourceServer');
    expect((client.AllowedOAuthScopes as unknown[]).map(flatten)).toEqual([
      'openid',
      `<${resourceServer}>/a2a`,
    ]);
    expect((client.CallbackURLs as unknown[]).map(flatten)).toEqual([`${ORIGIN}/`]);
    expect((client.LogoutURLs as unknown[]).map(flatten)).toEqual([`${ORIGIN}/`]);
  });

  it('lets the page revoke its refresh token at sign-out (web/src/auth/cognito.ts)', () => {
    expect(client.EnableTokenRevocation).toBe(true);
  });

  it("is what the deployed config.json names, with the API's URL", () => {
    expect(stack.resolve(stack.web.config)).toMatchObject({
      api_url: a2aEnvironment().Variables[ENV.baseUrl],
      auth: {
        kind: 'cognito',
        client_id: { Ref: logicalIdAt(template, 'A2aAuth/UserPool/WebClient') },
        participant_claim: 'cognito:username',
      },
    });
    const { auth } = stack.web.config;
    expect(auth.kind).toBe('cognito');
    if (auth.kind === 'cognito') expect(flatten(stack.resolve(auth.domain))).toBe(cognitoDomain());
  });
});

describe('the A2A API, called from the page (CORS)', () => {
  /** Every resource of the API with its methods, by path. */
  const resources = () => {
    const byPath = new Map<string, { method: string; id: string }[]>();
    for (const method of stack.api.restApi.methods) {
      const id = stack.getLogicalId(method.node.defaultChild as CfnElement);
      byPath.set(method.resource.path, [
        ...(byPath.get(method.resource.path) ?? []),
        { method: method.httpMethod, id },
      ]);
    }
    return byPath;
  };
  const ALLOW_ORIGIN = `'${ORIGIN}'`;

  it('answers the preflight of every route a page calls, in API Gateway, with the origin', () => {
    const called = [...resources()].filter(([path]) => !path.startsWith(REMOTE_PUSH_PREFIX));
    expect(called.map(([path]) => path).sort()).toEqual([
      '/',
      '/.well-known/agent-card.json',
      '/{proxy+}',
    ]);
    for (const [path, methods] of called) {
      const preflight = methods.find(({ method }) => method === 'OPTIONS');
      expect(preflight, path).toBeDefined();
      const properties = template.toJSON().Resources[preflight!.id].Properties;
      expect(properties.AuthorizationType, path).toBe('NONE');
      expect(properties.Integration.Type, path).toBe('MOCK');
      const [answer] = properties.Integration.IntegrationResponses;
      expect(answer.StatusCode).toBe('204');
      const headers = Object.fromEntries(
        Object.entries(answer.ResponseParameters as Record<string, unknown>).map(
          ([name, value]) => [name.replace('method.response.header.', ''), flatten(value)]
        )
      );
      expect(headers['Access-Control-Allow-Origin'], path).toBe(ALLOW_ORIGIN);
      expect(headers['Access-Control-Allow-Methods']).toBe("'GET,POST,DELETE,OPTIONS'");
      for (const header of ['Authorization', 'Content-Type', 'A2A-Version', 'Last-Event-ID']) {
        expect(headers['Access-Control-Allow-Headers']).toContain(header);
      }
      expect(properties.MethodResponses[0].ResponseParameters).toMatchObject({
        'method.response.header.Access-Control-Allow-Origin': true,
      });
    }
  });

  it("names the origin on API Gateway's own refusals (401, other 4xx, 5xx)", () => {
    const responses = Object.values(template.findResources('AWS::ApiGateway::GatewayResponse'));
    const byType = new Map(
      responses.map((response) => [
        response.Properties.ResponseType as string,
        response.Properties.ResponseParameters as Record<string, unknown>,
      ])
    );
    for (const type of ['UNAUTHORIZED', 'DEFAULT_4XX', 'DEFAULT_5XX']) {
      const headers = byType.get(type);
      expect(headers, type).toBeDefined();
      expect(flatten(headers?.['gatewayresponse.header.Access-Control-Allow-Origin']), type).toBe(
        ALLOW_ORIGIN
      );
      expect(headers?.['gatewayresponse.header.Vary'], type).toBe("'Origin'");
      expect(headers?.['gatewayresponse.header.Access-Control-Expose-Headers'], type).toContain(
        'WWW-Authenticate'
      );
    }
    // The 401 keeps its challenge.
    expect(byType.get('UNAUTHORIZED')?.['gatewayresponse.header.WWW-Authenticate']).toMatch(
      /Bearer/
    );
  });

  it("names the origin on WAF's 429, which answers before API Gateway does", () => {
    const [acl] = Object.values(template.findResources('AWS::WAFv2::WebACL'));
    const rules = acl?.Properties.Rules as Array<{
      Name: string;
      Action: {
        Block?: {
          CustomResponse: {
            ResponseCode: number;
            ResponseHeaders: Array<{ Name: string; Value: unknown }>;
          };
        };
      };
    }>;
    const answering = rules.filter((rule) => rule.Action.Block !== undefined);
    expect(answering.map((rule) => rule.Name)).toEqual(['ThrottledJsonRpc', 'Throttled']);
    for (const rule of answering) {
      const response = rule.Action.Block?.CustomResponse ?? {
        ResponseCode: 0,
        ResponseHeaders: [],
      };
      expect(response.ResponseCode, rule.Name).toBe(429);
      const headers = new Map(
        response.ResponseHeaders.map((header) => [header.Name, flatten(header.Value)])
      );
      expect(headers.get('Access-Control-Allow-Origin'), rule.Name).toBe(ORIGIN);
      expect(headers.get('Access-Control-Expose-Headers'), rule.Name).toBe('Retry-After');
      expect(headers.get('Retry-After'), rule.Name).toBe('60');
    }
  });

  it('tells the A2A function the origin, which names it on its own answers', () => {
    expect(flatten(a2aEnvironment().Variables[ENV.webOrigin])).toBe(ORIGIN);
    expect(ENV.webOrigin).toBe('TINY_HARNESS_WEB_ORIGIN');
  });
});

describe('the deployment of the built page (a temporary build, in a stack of its own)', () => {
  const API_URL = 'https://a2a.example.com/test';

  /** A user pool and the web app beside it, as the harness stack builds them. */
  const webStack = (distDir: string, context: Record<string, unknown> = {}) => {
    const app = new App({
      outdir: tempOutdir(),
      context: { 'aws:cdk:enable-path-metadata': true, ...context },
    });
    // Named as the harness stack, so the support helpers find its resources by path.
    const webStack = new Stack(app, TEST_STACK_NAME);
    const auth = new A2aAuth(webStack, 'A2aAuth', { stage: TEST_STAGE });
    // The authorizer must belong to an API; this one has a single mock method.
    new RestApi(webStack, 'Api').root.addMethod('GET', new MockIntegration(), {
      authorizer: auth.authorizer,
    });
    const web = new WebApp(webStack, 'Web', {
      apiUrl: API_URL,
      apiOrigin: new URL(API_URL).origin,
      auth,
      participantClaim: 'email',
      distDir,
    });
    return { app, web, template: Template.fromStack(webStack) };
  };

  const builtPage = () => {
    const dist = tempOutdir('tiny-harness-web-dist-');
    writeFileSync(join(dist, 'index.html'), '<!doctype html><title>tiny-harness</title>');
    mkdirSync(join(dist, 'assets'));
    writeFileSync(join(dist, 'assets', 'index-0123abcd.js'), 'console.log(1);');
    return dist;
  };

  const dist = builtPage();
  const { app, template: deployed } = webStack(dist);
  const outdir = app.outdir;

  const deployments = () =>
    Object.values(deployed.findResources('Custom::CDKBucketDeployment')).map(
      (resource) => resource.Properties as Record<string, unknown>
    );
  const pageDeployment = () => {
    const [page, ...others] = deployments().filter(
      (deployment) => deployment.DestinationBucketKeyPrefix === undefined
    );
    expect(others).toEqual([]);
    return page!;
  };

  it('copies the page and its hashed assets into the site bucket, the assets kept and cached for good', () => {
    const site = { Ref: logicalIdAt(deployed, 'Web/Site') };
    const [assets, ...others] = deployments().filter(
      (deployment) => deployment.DestinationBucketKeyPrefix === 'assets/'
    );
    expect(others).toEqual([]);
    expect(assets).toMatchObject({
      DestinationBucketName: site,
      Prune: false,
      SystemMetadata: { 'cache-control': 'public, max-age=31536000, immutable' },
    });
    const page = pageDeployment();
    expect(page).toMatchObject({
      DestinationBucketName: site,
      Exclude: ['assets/*'],
      SystemMetadata: { 'cache-control': 'no-cache' },
      DistributionId: { Ref: logicalIdAt(deployed, 'Web/Distribution') },
    });
    expect(page.DistributionPaths).toContain('/config.json');
    const [pageFiles] = page.SourceObjectKeys as string[];
    const staged = join(outdir, `asset.${pageFiles!.replace(/\.zip$/, '')}`);
    expect(readFileSync(join(staged, 'index.html'), 'utf8')).toContain('tiny-harness');
  });

  it('writes config.json: the API URL and the hosted UI of the pool, with the web client', () => {
    const page = pageDeployment();
    const keys = page.SourceObjectKeys as string[];
    const markers = page.SourceMarkers as Record<string, unknown>[];
    const configIndex = keys.findIndex((key) => {
      const staged = join(outdir, `asset.${key.replace(/\.zip$/, '')}`, 'config.json');
      try {
        readFileSync(staged);
        return true;
      } catch {
        return false;
      }
    });
    expect(configIndex).toBeGreaterThan(-1);
    let text = readFileSync(
      join(outdir, `asset.${keys[configIndex]!.replace(/\.zip$/, '')}`, 'config.json'),
      'utf8'
    );
    // What CloudFormation substitutes at deploy time, written as the support helpers flatten it.
    for (const [marker, value] of Object.entries(markers[configIndex] ?? {})) {
      text = text.split(marker).join(flatten(value));
    }
    const config = JSON.parse(text);
    expect(WebConfigSchema.safeParse(config).success).toBe(true);
    expect(config).toEqual({
      api_url: API_URL,
      auth: {
        kind: 'cognito',
        domain: `https://<${logicalIdAt(deployed, 'A2aAuth/UserPool/Domain')}>.auth.<AWS::Region>.amazoncognito.com`,
        client_id: `<${logicalIdAt(deployed, 'A2aAuth/UserPool/WebClient')}>`,
        scopes: ['openid', 'tiny-harness/a2a'],
        participant_claim: 'email',
      },
    });
  });

  it('runs with a role of its own that names every action, and may touch only its files and distribution', () => {
    const roleId = logicalIdAt(deployed, 'Web/DeployRole');
    const functions = Object.values(deployed.findResources('AWS::Lambda::Function'));
    expect(functions).toHaveLength(1);
    expect(functions[0]!.Properties.Role).toEqual({ 'Fn::GetAtt': [roleId, 'Arn'] });
    expect(resourceAt(deployed, 'Web/DeployRole').Properties?.ManagedPolicyArns).toBeUndefined();

    const statements = statementsOfRole(deployed, roleId);
    for (const { actions } of statements) {
      for (const action of actions) expect(action).not.toContain('*');
    }
    const site = logicalIdAt(deployed, 'Web/Site');
    // The bucket the deployment's zipped files are in (CDK's bootstrap assets bucket).
    const sources = new Set((pageDeployment().SourceBucketNames as unknown[]).map(flatten));
    expect(sources.size).toBe(1);
    const assetsBucket = `arn:<AWS::Partition>:s3:::${[...sources][0]}/*`;
    expect(statements).toEqual([
      {
        effect: 'Allow',
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [`<${logicalIdAt(deployed, 'Web/DeployLogs')}.Arn>`],
      },
      { effect: 'Allow', actions: ['s3:GetObject'], resources: [assetsBucket] },
      { effect: 'Allow', actions: ['s3:ListBucket'], resources: [`<${site}.Arn>`] },
      {
        effect: 'Allow',
        actions: ['s3:DeleteObject', 's3:GetObject', 's3:PutObject'],
        resources: [`<${site}.Arn>/*`],
      },
      {
        effect: 'Allow',
        actions: ['cloudfront:CreateInvalidation', 'cloudfront:GetInvalidation'],
        resources: [
          `arn:<AWS::Partition>:cloudfront::<AWS::AccountId>:distribution/<${logicalIdAt(deployed, 'Web/Distribution')}>`,
        ],
      },
    ]);
  });

  it('refuses to synthesize a deployable stack when the page is not built', () => {
    const empty = tempOutdir('tiny-harness-web-unbuilt-');
    expect(() => webStack(empty)).toThrow(/web renderer is not built.*npm run web:build/);
    // A template read without bundling (npm start, most tests) deploys no files instead.
    const { template: unbundled } = webStack(empty, { 'aws:cdk:bundling-stacks': [] });
    unbundled.resourceCountIs('Custom::CDKBucketDeployment', 0);
  });
});
