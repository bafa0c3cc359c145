/**
 * A task's history: every message exchanged on it, in order: the caller's message that started
 * it, the agent's status messages that were answered (an input-required question), the caller's
 * answers, and last the agent's current status message (read from the run's log, never stored).
 * Bounded: a task keeps its first message and its latest ones, each of bounded size.
 */
import type { Message } from "../wire.js";

/** Messages a task's history keeps: the first (what started the task) and the latest 99. */
export const HISTORY_CAP = 100;

/** Characters of JSON one kept message may take; a larger one is kept as a note saying so. */
export const HISTORY_MESSAGE_CHARS = 65_536;

/** Where task histories live (per task id; the caller's ownership is checked before any read). */
export interface A2ATaskHistory {
  /**
   * Appends `message` to the task's history, unless a message with its id is there already;
   * past `HISTORY_CAP` the oldest after the first is dropped.
   */
  add(taskId: string, message: Message): Promise<void>;
  /** The task's stored messages, oldest first. */
  messages(taskId: string): Promise<Message[]>;
}

/** The message as the history keeps it: whole, or, past the size cap, its ids and a note. */
export function keptMessage(message: Message): Message {
  const size = JSON.stringify(message).length;
  if (size <= HISTORY_MESSAGE_CHARS) return message;
  return {
    messageId: message.messageId,
    role: message.role,
    parts: [
      {
        text: `[a message of ${size} characters of JSON, over the history's cap of ${HISTORY_MESSAGE_CHARS} per message: not kept]`,
      },
    ],
    ...(message.contextId && { contextId: message.contextId }),
    ...(message.taskId && { taskId: message.taskId }),
  };
}

/**
 * Adds a message to a task's history once its turn has started: a failure to keep it is logged,
 * not answered, since the run goes on either way (and a caller told "failed" would send its
 * message again, starting a second task). The history then lacks that message.
 */
export async function keepMessage(history: A2ATaskHistory, taskId: string, message: Message): Promise<void> {
  try {
    await history.add(taskId, message);
  } catch (error) {
    console.error(`glassloop a2a: a message of task ${taskId} was not kept in its history:`, error);
  }
}

/** Histories in this process (for a serve log in memory: a restart forgets both). */
export class MemoryTaskHistory implements A2ATaskHistory {
  readonly #byTask = new Map<string, Message[]>();

  async add(taskId: string, message: Message): Promise<void> {
    const messages = this.#byTask.get(taskId) ?? [];
    if (messages.some((m) => m.messageId === message.messageId)) return;
    messages.push(structuredClone(keptMessage(message)));
    if (messages.length > HISTORY_CAP) messages.splice(1, 1);
    this.#byTask.set(taskId, messages);
  }

  async messages(taskId: string): Promise<Message[]> {
    return structuredClone(this.#byTask.get(taskId) ?? []);
  }
}
