/**
 * Creates the task table from TABLE_DEFINITION against any endpoint (DynamoDB Local for tests and
 * `npm start`; in AWS the CDK stack creates it from the same constants). Point-in-time recovery is
 * a CDK concern: DynamoDB Local has no backups.
 */
import {
  CreateTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  type DynamoDBClient,
  type TableDescription,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { type GlobalIndexDefinition, TABLE_DEFINITION, type TableDefinition } from './table.js';

export interface CreateTableOptions {
  /**
   * An existing table of that name is fine (it is assumed to have this design, and is given the
   * indexes a later build added). Default false.
   */
  ifNotExists?: boolean;
  /** How long to wait for ACTIVE; default 60 s. */
  timeoutMs?: number;
  definition?: TableDefinition;
}

export interface CreatedTable {
  tableName: string;
  /** The table's stream ARN (`LatestStreamArn`). */
  streamArn: string;
}

/** An index of the definition as CreateTable and UpdateTable both take it. */
const globalIndexOf = (index: GlobalIndexDefinition) => ({
  IndexName: index.indexName,
  KeySchema: [
    { AttributeName: index.partitionKey.name, KeyType: 'HASH' as const },
    { AttributeName: index.sortKey.name, KeyType: 'RANGE' as const },
  ],
  Projection: { ProjectionType: index.projectionType },
});

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

export const createTable = async (
  client: DynamoDBClient,
  tableName: string,
  options: CreateTableOptions = {}
): Promise<CreatedTable> => {
  const definition = options.definition ?? TABLE_DEFINITION;
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: definition.billingMode,
        KeySchema: [
          { AttributeName: definition.partitionKey.name, KeyType: 'HASH' },
          { AttributeName: definition.sortKey.name, KeyType: 'RANGE' },
        ],
        AttributeDefinitions: definition.attributeDefinitions.map((attribute) => ({
          AttributeName: attribute.name,
          AttributeType: attribute.type,
        })),
        GlobalSecondaryIndexes: definition.globalSecondaryIndexes.map(globalIndexOf),
        StreamSpecification: { StreamEnabled: true, StreamViewType: definition.streamViewType },
      })
    );
  } catch (error) {
    if (
      !(options.ifNotExists && error instanceof Error && error.name === 'ResourceInUseException')
    ) {
      throw error;
    }
  }

  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  let indexesAdded = false;
  for (;;) {
    const { Table: table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (!indexesAdded && table?.TableStatus === 'ACTIVE') {
      await addMissingIndexes(client, tableName, definition, table);
      indexesAdded = true;
      continue;
    }
    const indexesActive = (table?.GlobalSecondaryIndexes ?? []).every(
      (index) => index.IndexStatus === 'ACTIVE'
    );
    if (table?.TableStatus === 'ACTIVE' && indexesActive) {
      if (!table.LatestStreamArn) throw new Error(`table ${tableName} has no stream`);
      await enableTimeToLive(client, tableName, definition.timeToLiveAttribute);
      return { tableName, streamArn: table.LatestStreamArn };
    }
    if (Date.now() > deadline) throw new Error(`table ${tableName} is not ACTIVE in time`);
    await sleep(100);
  }
};

/**
 * A table made by an earlier build gets the indexes added since (one per UpdateTable, as DynamoDB
 * allows), so a data directory from before opens under this build.
 */
const addMissingIndexes = async (
  client: DynamoDBClient,
  tableName: string,
  definition: TableDefinition,
  table: TableDescription
): Promise<void> => {
  const present = new Set((table.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName));
  for (const index of definition.globalSecondaryIndexes) {
    if (present.has(index.indexName)) continue;
    await client.send(
      new UpdateTableCommand({
        TableName: tableName,
        AttributeDefinitions: [index.partitionKey, index.sortKey].map((attribute) => ({
          AttributeName: attribute.name,
          AttributeType: attribute.type,
        })),
        GlobalSecondaryIndexUpdates: [{ Create: globalIndexOf(index) }],
      })
    );
  }
};

const enableTimeToLive = async (client: DynamoDBClient, tableName: string, attribute: string) => {
  const { TimeToLiveDescription: ttl } = await client.send(
    new DescribeTimeToLiveCommand({ TableName: tableName })
  );
  if (ttl?.TimeToLiveStatus === 'ENABLED' || ttl?.TimeToLiveStatus === 'ENABLING') return;
  await client.send(
    new UpdateTimeToLiveCommand({
      TableName: tableName,
      TimeToLiveSpecification: { Enabled: true, AttributeName: attribute },
    })
  );
};
