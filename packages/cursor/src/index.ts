export { cursor, cursorArgs, CursorDriver, CURSOR_DESCRIPTOR } from "./cursor-driver.js";
export { validateCursorConfig, CURSOR_INHERITED_ENV, type CursorConfig } from "./config.js";
