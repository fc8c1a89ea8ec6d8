import type { Readable, Writable } from "node:stream";

/** Standard streams of a command, injectable for tests. */
export interface CommandIo {
  stdin: Readable;
  stdout: Writable;
  /** Writes a diagnostic line to stderr. */
  log(message: string): void;
  /** Writes an error line to stderr and returns the exit code 2 (usage error). */
  fail(message: string): number;
}

/** The process's own streams. */
export function processIo(): CommandIo {
  return {
    stdin: process.stdin,
    stdout: process.stdout,
    log: (message) => process.stderr.write(`afw: ${message}\n`),
    fail: (message) => {
      process.stderr.write(`afw: ${message}\n`);
      return 2;
    },
  };
}
