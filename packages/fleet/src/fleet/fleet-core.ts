import type { PgBoss } from "pg-boss";
import type { ThreadStore } from "@adaptor/threadstore";
import type { Notifier } from "../events/notifier.js";
import type { FleetTables } from "../schema/fleet-tables.js";
import type { FleetMetrics } from "../telemetry/fleet-metrics.js";
import type { ResolvedFleetOptions } from "./resolved-options.js";

/** What a fleet's handles and workers share. */
export interface FleetCore {
  readonly options: ResolvedFleetOptions;
  readonly tables: FleetTables;
  readonly notifier: Notifier;
  readonly boss: PgBoss;
  readonly threadStore: ThreadStore | undefined;
  readonly metrics: FleetMetrics;
  /** Aborted when the fleet is closed: its connections are ended, so a call then is refused with `FleetClosedError`. */
  readonly closed: AbortSignal;
}
