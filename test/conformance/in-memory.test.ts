import { TranscriptCache } from '../../functions/adapters/system/transcript-cache.js';
import { InMemoryEventLog } from '../../functions/core/testing/in-memory-event-log.js';
import { InMemoryPushConfigStore } from '../../functions/core/testing/in-memory-push-config-store.js';
import { InMemoryRemoteLinks } from '../../functions/core/testing/in-memory-remote-links.js';
import { InMemoryTaskStore } from '../../functions/core/testing/in-memory-task-store.js';
import { describeEventLogContract } from './event-log.contract.js';
import { describePushConfigStoreContract } from './push-config-store.contract.js';
import { describeRemoteLinksContract } from './remote-links.contract.js';
import { describeTaskStoreContract } from './task-store.contract.js';

describeTaskStoreContract('InMemoryTaskStore', async () => {
  const store = new InMemoryTaskStore({ agentId: 'tiny-harness' });
  return {
    agentId: 'tiny-harness',
    store,
    events: new InMemoryEventLog(store),
    pushConfigs: new InMemoryPushConfigStore(store),
  };
});
// A store whose records never say their inbox keeps the contract too (`TaskRecord.inbox` is optional).
describeTaskStoreContract('InMemoryTaskStore without the inbox on its records', async () => {
  const store = new InMemoryTaskStore({ inboxOnRecord: false });
  return {
    store,
    events: new InMemoryEventLog(store),
    pushConfigs: new InMemoryPushConfigStore(store),
  };
});
// The transcript cache is a task store too: it keeps the contract over the one it reads.
describeTaskStoreContract('TranscriptCache over InMemoryTaskStore', async () => {
  const store = new InMemoryTaskStore();
  return {
    store: new TranscriptCache(store),
    events: new InMemoryEventLog(store),
    pushConfigs: new InMemoryPushConfigStore(store),
  };
});
describeEventLogContract('InMemoryEventLog', async () => {
  const store = new InMemoryTaskStore();
  return { log: new InMemoryEventLog(store), store };
});
describePushConfigStoreContract('InMemoryPushConfigStore', async () => ({
  store: new InMemoryPushConfigStore(new InMemoryTaskStore()),
}));
describeRemoteLinksContract('InMemoryRemoteLinks', async () => ({
  links: new InMemoryRemoteLinks(),
}));
