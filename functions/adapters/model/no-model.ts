import type { Model } from '../../core/ports/model.js';

/**
 * The model of a function that calls none: only the turn step is given the deployment's model
 * (its configuration, its SDK, its permissions). Every other function drives the loop without
 * one, and a call reaching this is a bug, said as such rather than sent anywhere.
 */
export const NO_MODEL: Model = {
  invoke: async () => {
    throw new Error('this function calls no model: only the turn step is given one');
  },
};
