import type { Artifact, ListTasksRequest, ListTasksResponse, Task } from "@a2a-js/sdk";
import { TaskState } from "@a2a-js/sdk";
import { RequestMalformedError } from "@a2a-js/sdk/errors";
import { resolveUserScope, type OwnerResolver, type ServerCallContext, type TaskStore } from "@a2a-js/sdk/server";

/** `ListTasks` page size when the request names none, as the SDK's stores use. */
const DEFAULT_PAGE_SIZE = 50;

/**
 * The server's default task store: tasks in memory, scoped by tenant and owner, with the SDK's
 * `InMemoryTaskStore` semantics (`list` filters, order and page tokens included) but without a deep
 * copy of the whole task per `load` and `save`.
 *
 * The SDK records each streamed artifact chunk by loading the task, appending the chunk's part and
 * saving it; `InMemoryTaskStore` deep-copies the task both ways, so a chunk costs the whole answer
 * so far. Here the values a task holds (parts, messages, status, metadata) are deep-copied and
 * frozen once, the first time the store sees them, and shared from then on by every later version
 * of the task and every caller that loads it. A `load` copies only the task's spine (the task, its
 * `artifacts`, `parts` and `history` arrays, each artifact object), which a caller may change and
 * save; the frozen values are replaced, not changed in place, as the SDK's `ResultManager` does
 * (a change in place throws a `TypeError`). A save finds the parts and messages it already keeps
 * by identity, at the start of each list. A chunk thus costs its own bytes plus a pointer copy per
 * part of its artifact, as the SDK's own append does.
 */
export class MemoryTaskStore implements TaskStore {
  /** Tasks by tenant, then owner, then id. */
  readonly #tasks = new Map<string, Map<string, Map<string, Task>>>();
  readonly #owner: OwnerResolver;
  /** The frozen values this store made; a value in it is kept as it is. */
  readonly #frozen = new WeakSet<object>();

  /** `ownerResolver`: who owns a task, from the request's context. Default: the SDK's `resolveUserScope`. */
  constructor(ownerResolver: OwnerResolver = resolveUserScope) {
    this.#owner = ownerResolver;
  }

  /** See the SDK's `TaskStore.load`: the task in the caller's scope, its spine a copy of its own. */
  async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    const task = this.#bucket(context)?.get(taskId);
    return task ? spineCopy(task) : undefined;
  }

  /** See the SDK's `TaskStore.save`: replaces the stored task; the caller's objects stay its own. */
  async save(task: Task, context: ServerCallContext): Promise<void> {
    const tasks = this.#bucket(context, true)!;
    tasks.set(task.id, this.#keep(task, tasks.get(task.id)));
  }

  /**
   * See the SDK's `TaskStore.list`: the caller's tasks, filtered by `contextId`, `status` and
   * `statusTimestampAfter`, newest status first (then by id, descending), `pageSize` (default 50)
   * at a time; artifacts only with `includeArtifacts`.
   * @throws RequestMalformedError (the SDK's) for a page token that is not one.
   */
  async list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    const { contextId, status, pageSize = DEFAULT_PAGE_SIZE, pageToken, statusTimestampAfter, includeArtifacts = false } = params;
    let tasks = [...(this.#bucket(context)?.values() ?? [])];
    if (contextId) tasks = tasks.filter((task) => task.contextId === contextId);
    if (status !== undefined && status !== TaskState.TASK_STATE_UNSPECIFIED) tasks = tasks.filter((task) => task.status?.state === status);
    if (statusTimestampAfter) {
      const after = new Date(statusTimestampAfter).getTime();
      tasks = tasks.filter((task) => task.status?.timestamp && new Date(task.status.timestamp).getTime() > after);
    }
    tasks.sort((a, b) => {
      const timeA = a.status?.timestamp || "";
      const timeB = b.status?.timestamp || "";
      return timeB !== timeA ? timeB.localeCompare(timeA) : b.id.localeCompare(a.id);
    });
    const totalSize = tasks.length;
    if (pageToken) {
      const cursor = decodePageToken(pageToken);
      const at = tasks.findIndex((task) => (task.status?.timestamp || "") === cursor.timestamp && task.id === cursor.id);
      tasks = at === -1 ? [] : tasks.slice(at + 1);
    }
    const page = tasks.slice(0, pageSize);
    const last = page.at(-1);
    return {
      tasks: page.map((task) => (includeArtifacts ? spineCopy(task) : { ...spineCopy(task), artifacts: [] })),
      nextPageToken: last && tasks.length > page.length ? encodePageToken(last.status?.timestamp || "", last.id) : "",
      pageSize,
      totalSize,
    };
  }

  #bucket(context: ServerCallContext, create = false): Map<string, Task> | undefined {
    const tenant = context.tenant ?? "";
    const owner = this.#owner(context);
    let owners = this.#tasks.get(tenant);
    if (!owners) {
      if (!create) return undefined;
      this.#tasks.set(tenant, (owners = new Map()));
    }
    let tasks = owners.get(owner);
    if (!tasks && create) owners.set(owner, (tasks = new Map()));
    return tasks;
  }

  /**
   * The version of `task` to keep (its spine of its own): values already kept are shared, new ones
   * copied and frozen. A list that starts with the items of the one `previous` kept (parts of an artifact
   * that grew by a chunk, a history that grew by a message) is compared by identity, not looked up
   * item by item.
   */
  #keep(task: Task, previous: Task | undefined): Task {
    const kept: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(task)) {
      if (key === "artifacts") {
        const before = new Map((previous?.artifacts ?? []).map((artifact) => [artifact.artifactId, artifact]));
        kept[key] = this.#keepList((value as Artifact[] | undefined) ?? [], previous?.artifacts, (artifact) =>
          this.#keepArtifact(artifact, before.get(artifact.artifactId)),
        );
      } else if (key === "history")
        kept[key] = this.#keepList((value as unknown[] | undefined) ?? [], previous?.history, (message) => this.#own(message));
      else kept[key] = this.#own(value);
    }
    return kept as unknown as Task;
  }

  #keepArtifact(artifact: Artifact, previous: Artifact | undefined): Artifact {
    const kept: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(artifact))
      kept[key] =
        key === "parts"
          ? this.#keepList((value as unknown[] | undefined) ?? [], previous?.parts, (part) => this.#own(part))
          : this.#own(value);
    return kept as unknown as Artifact;
  }

  /** `list` as an array of kept items: those it shares with the start of `previous` (kept already), the others through `keep`. */
  #keepList<T>(list: readonly T[], previous: readonly T[] | undefined, keep: (item: T) => T): T[] {
    let shared = 0;
    const common = Math.min(list.length, previous?.length ?? 0);
    while (shared < common && list[shared] === previous![shared]) shared++;
    const kept = previous ? previous.slice(0, shared) : [];
    for (let i = shared; i < list.length; i++) kept.push(keep(list[i]!));
    return kept;
  }

  /** `value` when it is a primitive or this store's frozen value, else a frozen deep copy of it. */
  #own<T>(value: T): T {
    if (value === null || typeof value !== "object" || this.#frozen.has(value)) return value;
    return this.#mark(deepFreeze(structuredClone(value)));
  }

  #mark<T extends object>(value: T): T {
    this.#frozen.add(value);
    return value;
  }
}

/**
 * A task a caller may change: the task, its `artifacts`, `history` and `parts` arrays and each
 * artifact are copies (arrays of pointers); the frozen values they hold are shared.
 */
function spineCopy(task: Task): Task {
  return {
    ...task,
    artifacts: (task.artifacts ?? []).map((artifact) => ({ ...artifact, parts: [...(artifact.parts ?? [])] })),
    history: [...(task.history ?? [])],
  };
}

/** Freezes `value` and everything it holds, but for the contents of byte arrays (which cannot be frozen). */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !ArrayBuffer.isView(value) && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** A page token as the SDK's in-memory store makes them: base64 of `<timestamp>|<id>`. */
function encodePageToken(timestamp: string, id: string): string {
  return Buffer.from(`${timestamp}|${id}`).toString("base64");
}

/** @throws RequestMalformedError for a token that is not one. */
function decodePageToken(token: string): { timestamp: string; id: string } {
  const [timestamp = "", ...id] = Buffer.from(token, "base64").toString("utf8").split("|");
  if (id.length === 0) throw new RequestMalformedError("Invalid page token format.");
  return { timestamp, id: id.join("|") };
}
