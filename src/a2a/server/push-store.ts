/**
 * Where push-notification configs live: per caller and task, bounded in number. Over a serve log
 * in a SQLite file they are kept in that file (`SqliteA2AStore`), with where each task's
 * notifications stand, so a restarted server follows them again; over any other log the default
 * keeps them in memory (a restart forgets them). Pass your own `A2APushStore` to keep them elsewhere.
 */
/** One stored config: the task it watches, the webhook, and the wire spelling its caller speaks. */
export interface PushConfig {
  id: string;
  taskId: string;
  url: string;
  /** Sent as `X-A2A-Notification-Token`, so the receiver knows the notification is for it. */
  token?: string;
  /** Sent as `Authorization: <scheme> <credentials>`. */
  authentication?: { scheme: string; credentials: string };
  version: "1.0" | "0.3";
}

/** Push-notification configs by caller (principal) and task. */
export interface A2APushStore {
  /** Adds or replaces (same id) a config of the caller's task. */
  put(principal: string, config: PushConfig): Promise<void>;
  get(principal: string, taskId: string, id: string): Promise<PushConfig | undefined>;
  list(principal: string, taskId: string): Promise<PushConfig[]>;
  /** Whether a config was there to delete. */
  delete(principal: string, taskId: string, id: string): Promise<boolean>;
  /** How many configs the caller has, over all tasks (for the per-caller cap). */
  count(principal: string): Promise<number>;
  /**
   * The tasks with configs whose notifications have not reached the task's end and that no live
   * follower holds (its lease ran out before `now`, ms), with where they stand: what a server
   * follows again when it starts. A store that forgets on restart omits it.
   */
  pending?(now: number): Promise<PushProgress[]>;
  /** Records where a task's notifications stand (with `pending`). */
  setProgress?(progress: PushProgress): Promise<void>;
  /**
   * Takes or renews the right to send a task's notifications, for `follower` (one server) until
   * `until` (ms), and says where they stand (`seq` -1: nothing recorded); undefined while another
   * follower's lease holds at `now`. Atomic, so of several servers sharing the store one sends
   * each task's notifications.
   */
  claim?(
    taskId: string,
    principal: string,
    follower: string,
    until: number,
    now: number,
  ): Promise<PushProgress | undefined>;
  /** Gives the right up (a server closing), so another server may take the task at once. */
  release?(taskId: string, follower: string): Promise<void>;
}

/** Where one task's notifications stand. */
export interface PushProgress {
  principal: string;
  taskId: string;
  /** The last log item whose notifications all went out (-1: none). */
  seq: number;
  /** The last state notified, so a restarted server does not send it twice. */
  state?: string;
  /** The task's last notification went out: nothing more to follow. */
  done: boolean;
}

/** The default store: a map in this process. */
export class MemoryPushStore implements A2APushStore {
  readonly #byTask = new Map<string, Map<string, PushConfig>>();

  #key(principal: string, taskId: string): string {
    return JSON.stringify([principal, taskId]);
  }

  async put(principal: string, config: PushConfig): Promise<void> {
    const key = this.#key(principal, config.taskId);
    const configs = this.#byTask.get(key) ?? new Map<string, PushConfig>();
    configs.set(config.id, { ...config });
    this.#byTask.set(key, configs);
  }

  async get(principal: string, taskId: string, id: string): Promise<PushConfig | undefined> {
    const config = this.#byTask.get(this.#key(principal, taskId))?.get(id);
    return config && { ...config };
  }

  async list(principal: string, taskId: string): Promise<PushConfig[]> {
    return [...(this.#byTask.get(this.#key(principal, taskId))?.values() ?? [])].map((c) => ({ ...c }));
  }

  async delete(principal: string, taskId: string, id: string): Promise<boolean> {
    const key = this.#key(principal, taskId);
    const configs = this.#byTask.get(key);
    const had = configs?.delete(id) === true;
    if (configs?.size === 0) this.#byTask.delete(key);
    return had;
  }

  async count(principal: string): Promise<number> {
    let n = 0;
    for (const [key, configs] of this.#byTask)
      if ((JSON.parse(key) as string[])[0] === principal) n += configs.size;
    return n;
  }
}
