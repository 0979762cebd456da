import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** Whether this platform exposes per-process sockets under /proc (Linux). */
export const HAS_PROC_NET = existsSync('/proc/net/tcp') && existsSync('/proc/self/fd');

export interface InetSocket {
  proto: string;
  local: string;
  state: string;
  inode: string;
}

/** Every TCP/UDP socket of this network namespace, by inode (from /proc/net). */
export function inetSockets(): Map<string, InetSocket> {
  const out = new Map<string, InetSocket>();
  for (const proto of ['tcp', 'tcp6', 'udp', 'udp6']) {
    const file = `/proc/net/${proto}`;
    if (!existsSync(file)) continue;
    for (const l of readFileSync(file, 'utf8').split('\n').slice(1)) {
      const f = l.trim().split(/\s+/);
      if (f.length < 10) continue;
      out.set(f[9]!, { proto, local: f[1]!, state: f[3]!, inode: f[9]! });
    }
  }
  return out;
}

/** Inodes of the sockets a process holds open (pipes and files are skipped). */
export function socketInodesOf(pid: number): string[] {
  const dir = `/proc/${pid}/fd`;
  const out: string[] = [];
  let fds: string[];
  try {
    fds = readdirSync(dir);
  } catch {
    return out; // the process is gone
  }
  for (const fd of fds) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`${dir}/${fd}`));
      if (m) out.push(m[1]!);
    } catch {
      // closed between readdir and readlink
    }
  }
  return out;
}

/**
 * Watch a process until `done` resolves, sampling its sockets every few ms; returns every TCP/UDP
 * socket it was seen holding (its stdio pipes are Unix sockets and do not count).
 */
export async function watchInetSockets(pid: number, done: Promise<unknown>): Promise<InetSocket[]> {
  const seen = new Map<string, InetSocket>();
  let finished = false;
  void done.finally(() => {
    finished = true;
  });
  while (!finished) {
    const mine = socketInodesOf(pid);
    if (mine.length > 0) {
      const all = inetSockets();
      for (const inode of mine) {
        const s = all.get(inode);
        if (s) seen.set(inode, s);
      }
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  return [...seen.values()];
}
