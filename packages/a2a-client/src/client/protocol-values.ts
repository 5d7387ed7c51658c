import type { Role, TaskState } from "@a2a-js/sdk";

/**
 * The A2A protocol's task states, the numbers of its `TaskState` enum (the A2A SDK's
 * `TaskState.TASK_STATE_*`), typed as that enum. Kept here so that importing this package does
 * not load the A2A SDK's protocol module and its JOSE library: they load with the first
 * {@link A2AClient.connect}.
 */
export const TASK_STATE = {
  UNSPECIFIED: 0 as TaskState.TASK_STATE_UNSPECIFIED,
  SUBMITTED: 1 as TaskState.TASK_STATE_SUBMITTED,
  WORKING: 2 as TaskState.TASK_STATE_WORKING,
  COMPLETED: 3 as TaskState.TASK_STATE_COMPLETED,
  FAILED: 4 as TaskState.TASK_STATE_FAILED,
  CANCELED: 5 as TaskState.TASK_STATE_CANCELED,
  INPUT_REQUIRED: 6 as TaskState.TASK_STATE_INPUT_REQUIRED,
  REJECTED: 7 as TaskState.TASK_STATE_REJECTED,
  AUTH_REQUIRED: 8 as TaskState.TASK_STATE_AUTH_REQUIRED,
} as const;

/** The A2A protocol's `ROLE_USER` (the A2A SDK's `Role.ROLE_USER`): the role of a message the client sends. */
export const ROLE_USER = 1 as Role.ROLE_USER;

type A2AModules = [typeof import("@a2a-js/sdk"), typeof import("@a2a-js/sdk/client")];
let modules: Promise<A2AModules> | undefined;
/** The A2A SDK's error class, once its module was loaded with the rest of the SDK. */
let errorClass: typeof import("@a2a-js/sdk/errors").A2AError | undefined;

/** The A2A SDK's protocol module and its client (and its errors module), imported by the first call. */
export function a2aSdk(): Promise<A2AModules> {
  modules ??= Promise.all([
    import("@a2a-js/sdk"),
    import("@a2a-js/sdk/client"),
    import("@a2a-js/sdk/errors").then((errors) => {
      errorClass = errors.A2AError;
    }),
  ]).then(([sdk, client]) => [sdk, client]);
  return modules;
}

/**
 * The A2A SDK's `A2AError` class once {@link a2aSdk} loaded the SDK; undefined before, when no
 * error of the SDK can have been thrown yet (every call to a remote agent loads it first).
 */
export function loadedA2AError(): typeof import("@a2a-js/sdk/errors").A2AError | undefined {
  return errorClass;
}
