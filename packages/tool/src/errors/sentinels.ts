import { sentinel } from "@adaptor/errors";

// Host tool errors (docs/errors.md "Host tool errors").

/** The name, description, handler, annotations or schemas cannot form a valid tool. */
export const ErrInvalidDefinition = sentinel("adaptor.tool.InvalidDefinition", "invalid tool definition");
/** The agent's arguments fail JSON or schema validation. */
export const ErrInvalidInput = sentinel("adaptor.tool.InvalidInput", "invalid tool input");
/** A handler's value cannot encode as JSON or fails its output schema. */
export const ErrInvalidOutput = sentinel("adaptor.tool.InvalidOutput", "invalid tool output");
