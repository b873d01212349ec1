/** scripts/build-web.mjs: builds web/dist when what it is made of changed (`force`: always). */
export declare const buildWeb: (options?: { force?: boolean }) => Promise<void>;
