/**
 * The one DynamoDB table, built from the same constants the adapters and the local
 * `create-table.ts` read, so the key schema cannot drift between the cloud and a laptop.
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import {
  AttributeType,
  Billing,
  ProjectionType,
  StreamViewType,
  TableV2,
} from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import {
  type KeyAttribute,
  TABLE_DEFINITION,
  type TableDefinition,
} from '../../functions/adapters/dynamodb/table.js';

const ATTRIBUTE_TYPES = {
  S: AttributeType.STRING,
  N: AttributeType.NUMBER,
  B: AttributeType.BINARY,
} as const;

const attribute = (key: KeyAttribute) => ({ name: key.name, type: ATTRIBUTE_TYPES[key.type] });

export interface TaskTableProps {
  /** Defaults to the adapters' TABLE_DEFINITION; tests may pass another. */
  readonly definition?: TableDefinition;
  /** Refuse DeleteTable (production); the table is retained on stack deletion either way. */
  readonly deletionProtection: boolean;
}

export class TaskTable extends TableV2 {
  constructor(scope: Construct, id: string, props: TaskTableProps) {
    const definition = props.definition ?? TABLE_DEFINITION;
    super(scope, id, {
      partitionKey: attribute(definition.partitionKey),
      sortKey: attribute(definition.sortKey),
      billing: Billing.onDemand(),
      pointInTimeRecoverySpecification: {
        pointInTimeRecoveryEnabled: definition.pointInTimeRecovery,
      },
      timeToLiveAttribute: definition.timeToLiveAttribute,
      // Parents learn about their children's changes from this stream (stream-consumer.ts).
      dynamoStream: StreamViewType[definition.streamViewType],
      globalSecondaryIndexes: definition.globalSecondaryIndexes.map((index) => ({
        indexName: index.indexName,
        partitionKey: attribute(index.partitionKey),
        sortKey: attribute(index.sortKey),
        projectionType: ProjectionType[index.projectionType],
      })),
      deletionProtection: props.deletionProtection,
      // The table is every task's record and audit trail: deleting the stack never deletes it.
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }
}
