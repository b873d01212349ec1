import type { TaskPushNotificationConfig } from '@a2a-js/sdk';

/** A push-notification config as a client sends it: no id, no token, a public https webhook. */
export const pushConfigRequest = (
  overrides: Partial<TaskPushNotificationConfig> = {}
): TaskPushNotificationConfig => ({
  tenant: '',
  id: '',
  taskId: '',
  url: 'https://hooks.example.com/a2a',
  token: '',
  authentication: undefined,
  ...overrides,
});
