/**
 * With DATABASE_URL the PostgreSQL server is not the service's child: its backends serving the
 * service are found by the service's own TCP connections (their local ports, matched to
 * pg_stat_activity.client_port). Only backends: the server's shared processes (WAL writer,
 * checkpointer, ...) also serve other clients and are not attributed. Needs the server on this
 * machine, reached over TCP; otherwise the reason is returned instead.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import type postgres from 'postgres';

const readOr = <T>(read: () => T, fallback: T): T => {
  try {
    return read();
  } catch {
    return fallback; // Gone while we looked.
  }
};

/** Local ports of the TCP sockets `pid` holds: its socket fds matched to /proc/<pid>/net/tcp{,6}. */
export function tcpLocalPorts(pid: number): number[] {
  const inodes = new Set<string>();
  for (const fd of readOr(() => readdirSync(`/proc/${pid}/fd`), [])) {
    const target = readOr(() => readlinkSync(`/proc/${pid}/fd/${fd}`), '');
    const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
    if (inode !== undefined) inodes.add(inode);
  }
  const ports: number[] = [];
  for (const table of ['tcp', 'tcp6']) {
    const lines = readOr(() => readFileSync(`/proc/${pid}/net/${table}`, 'utf8'), '').split('\n');
    for (const line of lines.slice(1)) {
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ...
      const fields = line.trim().split(/\s+/);
      const inode = fields[9];
      const port = fields[1]?.split(':')[1];
      if (inode !== undefined && port !== undefined && inodes.has(inode)) {
        ports.push(Number.parseInt(port, 16));
      }
    }
  }
  return ports;
}

const LOOPBACK = new Set(['127.0.0.1', '::1']);

/** The pids of the backends serving `servicePid`'s connections, or why they cannot be read. */
export async function serviceBackendPids(
  sql: postgres.Sql,
  servicePid: number,
): Promise<number[] | string> {
  const [server] = await sql<{ addr: string | null }[]>`SELECT host(inet_server_addr()) AS addr`;
  const addr = server?.addr ?? null;
  if (addr === null) return 'the bench reaches PostgreSQL over a Unix socket (no client ports)';
  if (!LOOPBACK.has(addr)) return `PostgreSQL runs on ${addr}, not on this machine`;
  const ports = tcpLocalPorts(servicePid);
  const rows = await sql<{ pid: number }[]>`
    SELECT pid FROM pg_stat_activity
    WHERE client_port = ANY(${ports}::int[]) AND host(client_addr) IN ('127.0.0.1', '::1')`;
  return rows.map((row) => row.pid);
}
