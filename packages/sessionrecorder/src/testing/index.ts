// `@adaptor/sessionrecorder/testing`: the conformance kit an event backend runs in its own tests.
export { describeEventBackendConformance, type EventBackendHarness, type MakeEventBackend } from "./conformance.js";
