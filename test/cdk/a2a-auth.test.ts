import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { WWW_AUTHENTICATE } from '../../cdk/constructs/a2a-api.js';
import { ENV } from '../../cdk/constructs/environment.js';
import { A2A_SCOPE } from '../../functions/core/a2a/security.js';
import { flatten, logicalIdAt, resourceAt, synthHarness, TEST_STAGE } from './support/synth.js';

const { template } = synthHarness();
/** A dev stack whose pool may be deleted. */
const unprotected = synthHarness({ userPoolDeletionProtection: 'false' }).template;
const poolId = logicalIdAt(template, 'A2aAuth/UserPool');
const authorizerId = logicalIdAt(template, 'A2aAuth/Authorizer');
const domainId = logicalIdAt(template, 'A2aAuth/UserPool/Domain');

const TOKEN_URL = `https://<${domainId}>.auth.<AWS::Region>.amazoncognito.com/oauth2/token`;

const methods = () =>
  Object.values(template.findResources('AWS::ApiGateway::Method')).map((method) => {
    const resource = method.Properties.ResourceId;
    const path =
      'Fn::GetAtt' in resource
        ? '/'
        : (template.toJSON().Resources[resource.Ref].Properties.PathPart as string);
    return { route: `${method.Properties.HttpMethod} ${path}`, properties: method.Properties };
  });

describe('A2A API authorization', () => {
  it('requires a Cognito access token with the A2A scope on every method but the card and the remote push webhook', () => {
    // OPTIONS (the CORS preflight) is answered by API Gateway itself: test/cdk/web-app.test.ts.
    const guarded = methods().filter(
      ({ route }) =>
        route !== 'GET agent-card.json' &&
        route !== 'POST {linkId}' &&
        !route.startsWith('OPTIONS ')
    );
    expect(guarded.map(({ route }) => route).sort()).toEqual(['ANY {proxy+}', 'POST /']);
    for (const { properties } of guarded) {
      expect(properties).toMatchObject({
        AuthorizationType: 'COGNITO_USER_POOLS',
        AuthorizerId: { Ref: authorizerId },
        // With scopes, API Gateway takes access tokens (what client credentials issue).
        AuthorizationScopes: [A2A_SCOPE],
      });
    }
  });

  it('leaves the agent card open (A2A §8.2)', () => {
    const card = methods().find(({ route }) => route === 'GET agent-card.json');
    expect(card?.properties.AuthorizationType).toBe('NONE');
    expect(card?.properties.AuthorizerId).toBeUndefined();
  });

  it("leaves remote agents' pushes to the webhook function, which checks each child's token", () => {
    const push = methods().find(({ route }) => route === 'POST {linkId}');
    expect(push?.properties.AuthorizationType).toBe('NONE');
    expect(JSON.stringify(push?.properties.Integration.Uri)).toContain(
      logicalIdAt(template, 'RemotePushFunction')
    );
  });

  it('verifies tokens from the pool in the Authorization header', () => {
    expect(resourceAt(template, 'A2aAuth/Authorizer').Properties).toMatchObject({
      Type: 'COGNITO_USER_POOLS',
      IdentitySource: 'method.request.header.Authorization',
      ProviderARNs: [{ 'Fn::GetAtt': [poolId, 'Arn'] }],
    });
  });

  it("answers API Gateway's own 401 with a Bearer challenge", () => {
    template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      ResponseType: 'UNAUTHORIZED',
      ResponseParameters: {
        'gatewayresponse.header.WWW-Authenticate': `'${WWW_AUTHENTICATE}'`,
      },
    });
  });
});

describe('the user pool', () => {
  it('admits only administrator-created users, with a strong password policy', () => {
    expect(resourceAt(template, 'A2aAuth/UserPool').Properties).toMatchObject({
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
      Policies: {
        PasswordPolicy: {
          MinimumLength: 12,
          RequireLowercase: true,
          RequireUppercase: true,
          RequireNumbers: true,
          RequireSymbols: true,
        },
      },
    });
  });

  it('has optional app-based MFA and enforced threat protection (Plus plan), no SMS', () => {
    const properties = resourceAt(template, 'A2aAuth/UserPool').Properties!;
    expect(properties).toMatchObject({
      MfaConfiguration: 'OPTIONAL',
      EnabledMfas: ['SOFTWARE_TOKEN_MFA'],
      UserPoolTier: 'PLUS',
      UserPoolAddOns: { AdvancedSecurityMode: 'ENFORCED' },
    });
    expect(properties.SmsConfiguration).toBeUndefined();
  });

  it('outlives the stack: its users are not recreated by a redeploy', () => {
    template.hasResource('AWS::Cognito::UserPool', { DeletionPolicy: 'Retain' });
  });

  it('is protected from deletion unless the context key turns it off, in any stage', () => {
    expect(resourceAt(template, 'A2aAuth/UserPool').Properties).toMatchObject({
      DeletionProtection: 'ACTIVE',
    });
    unprotected.hasResourceProperties('AWS::Cognito::UserPool', {
      DeletionProtection: 'INACTIVE',
    });
    // Retained either way: turning it off only lets someone delete the pool by hand.
    unprotected.hasResource('AWS::Cognito::UserPool', { DeletionPolicy: 'Retain' });
  });

  it('defines the A2A scope on the tiny-harness resource server', () => {
    template.hasResourceProperties('AWS::Cognito::UserPoolResourceServer', {
      Identifier: 'tiny-harness',
      Scopes: [{ ScopeName: 'a2a', ScopeDescription: Match.anyValue() }],
      UserPoolId: { Ref: poolId },
    });
  });

  it('has a confidential client-credentials client for agents, with hour-long tokens', () => {
    const properties = resourceAt(template, 'A2aAuth/UserPool/AgentClient').Properties!;
    expect(properties).toMatchObject({
      GenerateSecret: true,
      AllowedOAuthFlows: ['client_credentials'],
      AllowedOAuthFlowsUserPoolClient: true,
      // No user sign-in flow through the agents' client.
      ExplicitAuthFlows: ['ALLOW_REFRESH_TOKEN_AUTH'],
      AccessTokenValidity: 60,
      TokenValidityUnits: { AccessToken: 'minutes' },
      EnableTokenRevocation: true,
      PreventUserExistenceErrors: 'ENABLED',
    });
    expect(properties.AllowedOAuthScopes).toHaveLength(1);
    expect(flatten((properties.AllowedOAuthScopes as unknown[])[0])).toBe(
      `<${logicalIdAt(template, 'A2aAuth/UserPool/ResourceServer')}>/a2a`
    );
  });

  it('has a hosted domain for the token endpoint, unique per account and stage', () => {
    expect(flatten(resourceAt(template, 'A2aAuth/UserPool/Domain').Properties!.Domain)).toBe(
      `harness-${TEST_STAGE}-<AWS::AccountId>`
    );
  });
});

describe('wiring', () => {
  const variables = () =>
    (
      resourceAt(template, 'A2aFunction').Properties!.Environment as {
        Variables: Record<string, unknown>;
      }
    ).Variables;

  it('tells the A2A function to take the caller from Cognito, and the token URL for the card', () => {
    expect(variables()[ENV.authMode]).toBe('cognito');
    expect(flatten(variables()[ENV.oauthTokenUrl])).toBe(TOKEN_URL);
  });

  it('tells only the A2A function', () => {
    for (const id of ['TurnStepFunction', 'ToolStepFunction', 'StreamFunction']) {
      const others = (
        resourceAt(template, id).Properties!.Environment as { Variables: Record<string, unknown> }
      ).Variables;
      expect(others[ENV.authMode], id).toBeUndefined();
    }
  });

  it('outputs the user pool id, the token endpoint and the agent client id', () => {
    const outputs = template.toJSON().Outputs as Record<string, { Value: unknown }>;
    expect(outputs.UserPoolId?.Value).toEqual({ Ref: poolId });
    expect(flatten(outputs.TokenEndpoint?.Value)).toBe(TOKEN_URL);
    expect(outputs.AgentClientId?.Value).toEqual({
      Ref: logicalIdAt(template, 'A2aAuth/UserPool/AgentClient'),
    });
  });
});
