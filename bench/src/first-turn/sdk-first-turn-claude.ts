// The cold-first-turn benchmark's SDK client for claude: `adaptor` and the claude driver, nothing else.
import { claude } from "@adaptor/claude";
import { firstTurn } from "./sdk-first-turn.js";

await firstTurn(claude);
