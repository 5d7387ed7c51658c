import { sentinel } from "@adaptor/errors";

// MCP identities (docs/errors.md "Pre-invocation errors"). Root names: ErrInvalidMCPConfig,
// ErrMCPUnsupported, ErrMCPTransportUnsupported are these very objects.

/** A declaration has a missing or duplicate name, a missing command or URL, an unknown transport, or a field of another transport. */
export const ErrInvalidConfig = sentinel("adaptor.mcp.InvalidConfig", "invalid MCP config");
/** The driver declares no MCP support. */
export const ErrUnsupported = sentinel("adaptor.mcp.Unsupported", "MCP unsupported");
/** The driver does not support the requested MCP transport. */
export const ErrTransportUnsupported = sentinel("adaptor.mcp.TransportUnsupported", "MCP transport unsupported");
