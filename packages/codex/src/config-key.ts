/** The config key an argument sets: `-c k=v`, `--config k=v`, `--config=k=v` or `-ck=v`; else undefined. */
export function configKeySetBy(arg: string, next: string | undefined): string | undefined {
  const setting =
    arg === "-c" || arg === "--config"
      ? next
      : arg.startsWith("--config=")
        ? arg.slice("--config=".length)
        : arg.startsWith("-c") && !arg.startsWith("--")
          ? arg.slice(2)
          : undefined;
  return setting?.split("=", 1)[0]?.trim() || undefined;
}
