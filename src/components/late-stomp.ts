/**
 * @module The STOMP endpoint as the parts started before it see it: the alert sink publishes,
 * ingest feeds the live tail and GET /metrics reads its counts, all before the endpoint exists
 * (it is attached to the app, which needs their routes). Until then nobody can be subscribed, so
 * publishing does nothing.
 */
import type { StompEndpoint } from '../stomp/endpoint.ts';
import type { Destination } from '../stomp/session.ts';
import type { EventTail } from '../domain/event-search/tail-records.ts';

export interface LateStomp extends EventTail {
  attach(endpoint: StompEndpoint): void;
  publish(destination: Destination, body: string): void;
  /** The endpoint's counts; read only once the server listens. */
  endpoint(): StompEndpoint;
}

export function lateStomp(): LateStomp {
  let stomp: StompEndpoint | null = null;
  return {
    attach: (endpoint) => void (stomp = endpoint),
    publish: (destination, body) => stomp?.publish(destination, body),
    tailing: () => stomp?.tailing() ?? false,
    publishEvents: (events) => stomp?.publishEvents(events),
    endpoint: () => {
      if (stomp === null) throw new Error('the STOMP endpoint is not attached yet');
      return stomp;
    },
  };
}
