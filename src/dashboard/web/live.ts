/**
 * @module The live feed: one STOMP connection to /ws (the key as CONNECT passcode) subscribed to
 * /topic/metrics and /topic/alerts, reconnecting on its own. Listeners get parsed messages.
 */
import { Client } from '@stomp/stompjs';
import type { MetricsSnapshot } from '../../domain/metrics/snapshot/snapshot.ts';
import type { AlertMessage } from '../../domain/alerts/alert.ts';

export type LiveStatus = 'connecting' | 'live' | 'reconnecting' | 'refused';

export interface Live {
  onMetrics(listener: (snapshot: MetricsSnapshot, at: number) => void): () => void;
  onAlert(listener: (alert: AlertMessage) => void): () => void;
  onStatus(listener: (status: LiveStatus, detail: string) => void): () => void;
  stop(): void;
}

function listeners<A extends unknown[]>() {
  const set = new Set<(...args: A) => void>();
  return {
    add: (listener: (...args: A) => void): (() => void) => {
      set.add(listener);
      return () => set.delete(listener);
    },
    emit: (...args: A): void => {
      for (const listener of set) listener(...args);
    },
  };
}

export function connectLive(key: string): Live {
  const metrics = listeners<[MetricsSnapshot, number]>();
  const alerts = listeners<[AlertMessage]>();
  const status = listeners<[LiveStatus, string]>();
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  const client = new Client({
    brokerURL: `${scheme}://${location.host}/ws`,
    connectHeaders: { passcode: key },
    reconnectDelay: 2000,
    heartbeatIncoming: 10_000,
    heartbeatOutgoing: 10_000,
  });
  client.onConnect = () => {
    status.emit('live', '');
    client.subscribe('/topic/metrics', (message) =>
      metrics.emit(JSON.parse(message.body) as MetricsSnapshot, Date.now()),
    );
    client.subscribe('/topic/alerts', (message) =>
      alerts.emit(JSON.parse(message.body) as AlertMessage),
    );
  };
  client.onStompError = (frame) => status.emit('refused', frame.headers.message ?? '');
  client.onWebSocketClose = () => status.emit('reconnecting', '');
  status.emit('connecting', '');
  client.activate();
  return {
    onMetrics: metrics.add,
    onAlert: alerts.add,
    onStatus: status.add,
    stop: () => void client.deactivate(),
  };
}
