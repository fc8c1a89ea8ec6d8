import { existsSync, readFileSync, readdirSync, readlinkSync } from "node:fs";

/**
 * Whether process `pid` holds a TCP socket listening on `port` (Linux: `/proc/net/tcp{,6}` and
 * `/proc/<pid>/fd`). Used to make sure a server that answers on a port is the child we started,
 * not another test's server that took the port first. Resolves `undefined` where `/proc` cannot
 * tell (another OS, or no access).
 */
export function processListensOn(pid: number, port: number): boolean | undefined {
  if (!existsSync("/proc/net/tcp")) return undefined;
  const listening = new Set<string>();
  const portHex = port.toString(16).toUpperCase().padStart(4, "0");
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string;
    try {
      text = readFileSync(table, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      // local_address is "ADDR:PORT" in hex; state 0A is LISTEN; field 9 is the socket inode.
      if (fields.length > 9 && fields[1]!.endsWith(`:${portHex}`) && fields[3] === "0A") listening.add(fields[9]!);
    }
  }
  if (listening.size === 0) return false;
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return undefined;
  }
  for (const fd of fds) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (match && listening.has(match[1]!)) return true;
    } catch {
      // The descriptor closed while we looked.
    }
  }
  return false;
}
