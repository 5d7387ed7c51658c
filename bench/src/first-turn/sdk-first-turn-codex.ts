// The cold-first-turn benchmark's SDK client for codex: `adaptor` and the codex driver, nothing else.
import { codex } from "@adaptor/codex";
import { firstTurn } from "./sdk-first-turn.js";

await firstTurn(codex);
