// Node 20 has no Promise.withResolvers; aws-local-stepfunctions 3 needs it for every Task state.
// Imported first by the local runtime and by the test setup. A no-op on Node 22+.
type Resolvers<T> = {
  promise: Promise<T>;
  resolve: (value: T | PromiseLike<T>) => void;
  reject: (reason?: unknown) => void;
};

const promiseConstructor = Promise as unknown as { withResolvers?: <T>() => Resolvers<T> };

if (typeof promiseConstructor.withResolvers !== 'function') {
  promiseConstructor.withResolvers = <T>(): Resolvers<T> => {
    let resolve!: Resolvers<T>['resolve'];
    let reject!: Resolvers<T>['reject'];
    const promise = new Promise<T>((onResolve, onReject) => {
      resolve = onResolve;
      reject = onReject;
    });
    return { promise, resolve, reject };
  };
}
