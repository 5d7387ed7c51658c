import { sentinel } from "@adaptor/errors";

// A2A client identities (docs/errors.md "A2A client errors"). Thrown errors carry them; a
// `ProtocolError` matches its cause's identity, or `ErrProtocol` when it has none.

/** The agent card, or the interface selected from it, is incomplete or invalid. */
export const ErrInvalidAgentCard = sentinel("adaptor.a2a.InvalidAgentCard", "invalid A2A agent card");
/** A request, response, part or event violates the supported A2A protocol shape. */
export const ErrProtocol = sentinel("adaptor.a2a.Protocol", "A2A protocol violation");
/** The remote endpoint rejected authentication or authorization (HTTP 401 or 403). */
export const ErrUnauthorized = sentinel("adaptor.a2a.Unauthorized", "A2A request unauthorized");
/** The remote task does not exist. */
export const ErrNotFound = sentinel("adaptor.a2a.NotFound", "A2A task not found");
/** The requested operation or content type is unsupported by the remote agent (or by this client). */
export const ErrUnsupported = sentinel("adaptor.a2a.Unsupported", "A2A operation unsupported");
/** Credentials would cross to an origin the client options do not explicitly trust. */
export const ErrUntrustedOrigin = sentinel("adaptor.a2a.UntrustedOrigin", "untrusted A2A origin");
