export { codebuddy, codebuddyArgs, CodeBuddyDriver, CODEBUDDY_DESCRIPTOR } from "./codebuddy-driver.js";
export { validateCodeBuddyConfig, CODEBUDDY_INHERITED_ENV, type CodeBuddyConfig } from "./config.js";
