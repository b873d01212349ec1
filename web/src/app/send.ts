/** Sending from the page: a message goes out and the call returns at once; the stream shows the rest. */
import type { Message, Task } from '@a2a-js/sdk';
import { useCallback, useState } from 'react';
import { type Agent, describeError } from '../agent/agent.js';

export const useSend = (agent: Agent) => {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const send = useCallback(
    async (message: Message): Promise<Task | undefined> => {
      setBusy(true);
      setError(undefined);
      try {
        const result = await agent.client.sendMessage({
          tenant: '',
          message,
          configuration: {
            acceptedOutputModes: [],
            taskPushNotificationConfig: undefined,
            historyLength: 0,
            // The task's stream shows what follows: progress, the plan, the reply.
            returnImmediately: true,
          },
          metadata: undefined,
        });
        return 'status' in result ? result : undefined;
      } catch (caught) {
        setError(describeError(caught));
        return undefined;
      } finally {
        setBusy(false);
      }
    },
    [agent]
  );
  return { send, busy, error, clearError: useCallback(() => setError(undefined), []) };
};
