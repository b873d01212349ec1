import { mapStackTracesLazily } from '../../adapters/system/lazy-source-maps.js';

// Each Lambda root imports this before anything else: the bundle's stack traces point at the
// sources, with the map read at the first error rather than at every cold start.
mapStackTracesLazily(import.meta.url);
