import {
  ExecutionDoesNotExist,
  GetExecutionHistoryCommand,
  type HistoryEvent,
  type SFNClient,
} from '@aws-sdk/client-sfn';
import type { LiveExecutionHistory } from '../../core/audit/archive.js';
import type { HistoryEventLike } from '../../core/audit/execution-history.js';
import { executionArn } from '../stepfunctions/turn-executions.js';

/** The largest page GetExecutionHistory returns. */
const PAGE = 1000;

/**
 * An execution's history from Step Functions (the cloud, or the local facade: the same API),
 * every page of it, oldest first. Executions are named per (task, generation).
 */
export class StepFunctionsExecutionHistory implements LiveExecutionHistory {
  readonly #client: SFNClient;
  readonly #stateMachineArn: string;

  constructor(options: { client: SFNClient; stateMachineArn: string }) {
    this.#client = options.client;
    this.#stateMachineArn = options.stateMachineArn;
  }

  async read(taskId: string, generation: number) {
    const arn = executionArn(this.#stateMachineArn, taskId, generation);
    const events: HistoryEvent[] = [];
    let nextToken: string | undefined;
    try {
      do {
        const page = await this.#client.send(
          new GetExecutionHistoryCommand({
            executionArn: arn,
            maxResults: PAGE,
            includeExecutionData: true,
            ...(nextToken === undefined ? {} : { nextToken }),
          })
        );
        events.push(...(page.events ?? []));
        nextToken = page.nextToken;
      } while (nextToken);
    } catch (error) {
      if (
        error instanceof ExecutionDoesNotExist ||
        (error as Error).name === 'ExecutionDoesNotExist'
      )
        return undefined;
      throw error;
    }
    return {
      executionArn: arn,
      events: events.flatMap((event): HistoryEventLike[] =>
        event.id === undefined || event.type === undefined || event.timestamp === undefined
          ? []
          : [{ ...event, id: event.id, type: event.type, timestamp: event.timestamp }]
      ),
    };
  }
}
