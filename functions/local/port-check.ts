import { createServer } from 'node:net';

/** Whether 127.0.0.1:port can be listened on now (0 always can). */
export const portIsFree = (port: number): Promise<boolean> =>
  new Promise((done) => {
    if (port === 0) {
      done(true);
      return;
    }
    const server = createServer();
    server.once('error', () => done(false));
    server.listen(port, '127.0.0.1', () => server.close(() => done(true)));
  });
