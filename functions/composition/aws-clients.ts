import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SFNClient } from '@aws-sdk/client-sfn';
import type { RuntimeConfig } from './runtime-config.js';

/** Local endpoints (DynamoDB Local, the local Step Functions service) take any credentials. */
const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

const clientOptions = (region: string, endpoint: string | undefined) =>
  endpoint === undefined ? { region } : { region, credentials: LOCAL_CREDENTIALS, endpoint };

/** The DynamoDB client of a configuration: DynamoDB Local's endpoint when one is set. */
export const dynamoDbClientOf = (
  config: Pick<RuntimeConfig, 'AWS_REGION' | 'TINY_HARNESS_DYNAMODB_ENDPOINT'>
): DynamoDBClient =>
  new DynamoDBClient(clientOptions(config.AWS_REGION, config.TINY_HARNESS_DYNAMODB_ENDPOINT));

/** The Step Functions client of a configuration: the local service's endpoint when one is set. */
export const sfnClientOf = (
  config: Pick<RuntimeConfig, 'AWS_REGION' | 'TINY_HARNESS_SFN_ENDPOINT'>
): SFNClient => new SFNClient(clientOptions(config.AWS_REGION, config.TINY_HARNESS_SFN_ENDPOINT));
