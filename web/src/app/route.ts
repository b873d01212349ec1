/**
 * Where the page is, in its hash (`#/tasks/<id>`), so a task has an address to share or reload,
 * and the server (the A2A routes on the same origin under `npm start`) never sees page paths.
 */
export type Route =
  | { page: 'new' }
  /** A task; with `at`, its panes show it as it was at that message of its history. */
  | { page: 'task'; taskId: string; at?: string }
  /** A sub-task on another agent: what the parent's row says of it. */
  | { page: 'remote'; parentId: string; taskId: string };

export const routeOf = (hash: string): Route => {
  const parts = hash
    .replace(/^#\/?/, '')
    .split('/')
    .filter((part) => part !== '')
    .map((part) => decodeURIComponent(part));
  if (parts[0] === 'tasks' && parts[1] !== undefined) {
    if (parts[2] === 'remote' && parts[3] !== undefined) {
      return { page: 'remote', parentId: parts[1], taskId: parts[3] };
    }
    if (parts[2] === 'at' && parts[3] !== undefined) {
      return { page: 'task', taskId: parts[1], at: parts[3] };
    }
    return { page: 'task', taskId: parts[1] };
  }
  return { page: 'new' };
};

export const hrefOf = (route: Route): string => {
  if (route.page === 'task') {
    const task = `#/tasks/${encodeURIComponent(route.taskId)}`;
    return route.at === undefined ? task : `${task}/at/${encodeURIComponent(route.at)}`;
  }
  if (route.page === 'remote') {
    return `#/tasks/${encodeURIComponent(route.parentId)}/remote/${encodeURIComponent(route.taskId)}`;
  }
  return '#/';
};
