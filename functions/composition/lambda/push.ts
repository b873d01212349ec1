import './source-maps.js';
import { DynamoDbEventLog } from '../../adapters/dynamodb/dynamodb-event-log.js';
import { DynamoDbPushConfigStore } from '../../adapters/dynamodb/dynamodb-push-config-store.js';
import { DynamoDbTaskStore } from '../../adapters/dynamodb/dynamodb-task-store.js';
import { HttpWebhookSender } from '../../adapters/push/http-webhook-sender.js';
import { dynamoDbClientOf } from '../aws-clients.js';
import { loggerOf } from '../logger.js';
import { readRuntimeConfig } from '../runtime-config.js';
import { buildSealer } from '../sealer.js';

const build = () => {
  const config = readRuntimeConfig();
  const table = { client: dynamoDbClientOf(config), tableName: config.TINY_HARNESS_TABLE };
  return {
    logger: loggerOf(config),
    // Delivery reads a task's record (who may be told), and its log for a commit whose events
    // the stream image holds in part; nothing else of the loop's.
    loop: { store: new DynamoDbTaskStore(table), events: new DynamoDbEventLog(table) },
    pushConfigs: new DynamoDbPushConfigStore(table),
    sealer: buildSealer(config),
    webhooks: new HttpWebhookSender({
      policy: { allowLoopback: config.TINY_HARNESS_ALLOW_LOOPBACK_WEBHOOKS },
    }),
  };
};

let memo: ReturnType<typeof build> | undefined;

/** The push function's composition root: the task records, the configs, their sealer, the sender. */
export const lambdaPushRuntime = (): ReturnType<typeof build> => {
  memo ??= build();
  return memo;
};
