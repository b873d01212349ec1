/**
 * Where a remote agent pushes the changes of a child we gave it: our own webhook, one path per
 * child (`/remote-agents/push/<parent id>/<link id>`), authenticated by the token we generated
 * for that child's push config. Outside the A2A surface: no caller identity, only the token.
 */
export const REMOTE_PUSH_PREFIX = '/remote-agents/push';

export const remotePushPath = (parentId: string, linkId: string): string =>
  `${REMOTE_PUSH_PREFIX}/${encodeURIComponent(parentId)}/${linkId}`;

const PATH = /^\/remote-agents\/push\/([^/]+)\/([0-9a-f]{32})\/?$/;

/** The child a webhook path names; undefined for any other path. */
export const parseRemotePushPath = (
  path: string
): { parentId: string; linkId: string } | undefined => {
  const match = PATH.exec(path);
  if (match === null) return undefined;
  try {
    return { parentId: decodeURIComponent(match[1] as string), linkId: match[2] as string };
  } catch {
    return undefined;
  }
};
