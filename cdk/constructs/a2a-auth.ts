/**
 * Who may call the A2A API in the cloud: a Cognito user pool whose access tokens API Gateway
 * verifies (a COGNITO_USER_POOLS authorizer requiring the A2A scope) before the A2A function runs.
 * Why Cognito JWTs rather than IAM: docs/identity.md.
 *
 * Agents get tokens with the OAuth 2.0 client-credentials grant (one app client per agent, with
 * a secret); people are created by an administrator (no self sign-up) and use any client that
 * yields an access token with the scope.
 */
import { Duration, Stack } from 'aws-cdk-lib';
import { CognitoUserPoolsAuthorizer, IdentitySource } from 'aws-cdk-lib/aws-apigateway';
import {
  AccountRecovery,
  type CfnUserPoolClient,
  FeaturePlan,
  Mfa,
  OAuthScope,
  ResourceServerScope,
  StandardThreatProtectionMode,
  UserPool,
  type UserPoolClient,
  type UserPoolDomain,
} from 'aws-cdk-lib/aws-cognito';
import { Construct } from 'constructs';
import { A2A_RESOURCE_SERVER, A2A_SCOPE_NAME } from '../../functions/core/a2a/security.js';
import { acknowledge } from './nag.js';

/** Client-credentials tokens cannot be refreshed: an agent asks again, so an hour is plenty. */
export const ACCESS_TOKEN_VALIDITY = Duration.hours(1);

export interface A2aAuthProps {
  /** The deployment's stage: part of the hosted domain's prefix. */
  readonly stage: string;
  /** Refuse to delete the user pool (CDK context `userPoolDeletionProtection`). @default true */
  readonly deletionProtection?: boolean;
}

export class A2aAuth extends Construct {
  readonly userPool: UserPool;
  /** The app client for agent callers (client credentials, with a secret). */
  readonly agentClient: UserPoolClient;
  readonly domain: UserPoolDomain;
  /** The OAuth 2.0 token endpoint, which the agent card advertises. */
  readonly tokenUrl: string;
  /** Every scope an A2A method requires (`<resource server>/<scope>`). */
  readonly scopes: readonly string[];
  readonly authorizer: CognitoUserPoolsAuthorizer;
  /** The A2A scope, for an app client that asks for it (the web renderer's). */
  readonly a2aOAuthScope: OAuthScope;

  constructor(scope: Construct, id: string, props: A2aAuthProps) {
    super(scope, id);
    this.userPool = new UserPool(this, 'UserPool', {
      // Callers are admitted by an administrator: a public endpoint must not mint identities.
      selfSignUpEnabled: false,
      signInAliases: { username: true, email: true },
      autoVerify: { email: true },
      accountRecovery: AccountRecovery.EMAIL_ONLY,
      // Optional, and app-based only: an SMS factor would need an SNS role and a spending limit.
      mfa: Mfa.OPTIONAL,
      mfaSecondFactor: { otp: true, sms: false },
      passwordPolicy: {
        minLength: 12,
        requireLowercase: true,
        requireUppercase: true,
        requireDigits: true,
        requireSymbols: true,
        tempPasswordValidity: Duration.days(3),
      },
      // Threat protection (compromised credentials, adaptive authentication) needs the Plus plan.
      featurePlan: FeaturePlan.PLUS,
      standardThreatProtectionMode: StandardThreatProtectionMode.FULL_FUNCTION,
      deletionProtection: props.deletionProtection ?? true,
    });

    const a2aScope = new ResourceServerScope({
      scopeName: A2A_SCOPE_NAME,
      scopeDescription: 'Call the A2A endpoint',
    });
    const resourceServer = this.userPool.addResourceServer('ResourceServer', {
      identifier: A2A_RESOURCE_SERVER,
      userPoolResourceServerName: 'tiny-harness A2A API',
      scopes: [a2aScope],
    });
    this.scopes = [`${A2A_RESOURCE_SERVER}/${A2A_SCOPE_NAME}`];
    this.a2aOAuthScope = OAuthScope.resourceServer(resourceServer, a2aScope);

    this.agentClient = this.userPool.addClient('AgentClient', {
      generateSecret: true,
      oAuth: {
        flows: { clientCredentials: true },
        scopes: [this.a2aOAuthScope],
      },
      accessTokenValidity: ACCESS_TOKEN_VALIDITY,
      idTokenValidity: ACCESS_TOKEN_VALIDITY,
      refreshTokenValidity: ACCESS_TOKEN_VALIDITY,
      enableTokenRevocation: true,
      preventUserExistenceErrors: true,
    });
    // No user sign-in through the agents' client: its secret is for client credentials only
    // (CDK leaves the flows unset for `authFlows: {}`, which Cognito reads as SRP and custom).
    (this.agentClient.node.defaultChild as CfnUserPoolClient).explicitAuthFlows = [
      'ALLOW_REFRESH_TOKEN_AUTH',
    ];

    // The prefix is global within a region: the account id keeps two deployments apart, and
    // `harness-` keeps it under 63 characters for the longest stage name (40).
    this.domain = this.userPool.addDomain('Domain', {
      cognitoDomain: {
        domainPrefix: `harness-${props.stage.toLowerCase()}-${Stack.of(this).account}`,
      },
    });
    this.tokenUrl = `${this.domain.baseUrl()}/oauth2/token`;

    this.authorizer = new CognitoUserPoolsAuthorizer(this, 'Authorizer', {
      cognitoUserPools: [this.userPool],
      identitySource: IdentitySource.header('Authorization'),
    });

    acknowledge(
      this.userPool,
      'AwsSolutions-COG2',
      'MFA is optional (TOTP): agent callers authenticate with client credentials, to which MFA does not apply, and people are created by an administrator who may require it per user; threat protection (Plus plan, enforced) covers risky sign-ins.'
    );
  }
}
