/**
 * @module The live feed: one STOMP connection to /ws (the key as CONNECT passcode) subscribed to
 * /topic/metrics and /topic/alerts, reconnecting on its own. Listeners get parsed messages. The
 * explorer's live tail subscribes /topic/events with its search as the `filter` header while it is on
 * (again after each reconnect).
 */
import { Client, type StompSubscription } from '@stomp/stompjs';
import type { MetricsSnapshot } from '../../domain/metrics/snapshot/snapshot.ts';
import type { EventRecord } from '../../domain/event.ts';
import type { AlertMessage } from '../../domain/rules/alerts/alert.ts';

export type LiveStatus = 'connecting' | 'live' | 'reconnecting' | 'refused';

export interface Live {
  onMetrics(listener: (snapshot: MetricsSnapshot, at: number) => void): () => void;
  onAlert(listener: (alert: AlertMessage) => void): () => void;
  onStatus(listener: (status: LiveStatus, detail: string) => void): () => void;
  /**
   * Events matching `filter` (a query string) as they are stored; `onReady` once the server
   * confirmed the subscription (its RECEIPT: events stored from then on arrive). The returned
   * function stops.
   */
  tail(filter: string, listener: (event: EventRecord) => void, onReady?: () => void): () => void;
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

interface Tail {
  readonly filter: string;
  readonly listener: (event: EventRecord) => void;
  readonly onReady?: () => void;
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
  /** The tails on now, with their subscription on this connection (none while disconnected). */
  const tails = new Map<Tail, StompSubscription | null>();
  let receipts = 0;
  const subscribeTail = (tail: Tail): StompSubscription => {
    const receipt = `tail-${++receipts}`;
    if (tail.onReady !== undefined) client.watchForReceipt(receipt, tail.onReady);
    return client.subscribe(
      '/topic/events',
      (message) => tail.listener(JSON.parse(message.body) as EventRecord),
      { filter: tail.filter, receipt },
    );
  };
  client.onConnect = () => {
    status.emit('live', '');
    for (const tail of tails.keys()) tails.set(tail, subscribeTail(tail));
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
    tail: (filter, listener, onReady) => {
      const tail: Tail = { filter, listener, ...(onReady === undefined ? {} : { onReady }) };
      tails.set(tail, client.connected ? subscribeTail(tail) : null);
      return () => {
        const subscription = tails.get(tail);
        tails.delete(tail);
        if (subscription != null && client.connected) subscription.unsubscribe();
      };
    },
    stop: () => void client.deactivate(),
  };
}
