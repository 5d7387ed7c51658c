await import("adaptor"); await import("@adaptor/claude"); await import("@adaptor/codex");
