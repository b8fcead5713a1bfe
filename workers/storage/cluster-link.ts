/**
 * @module Ingest hot path, cluster mode: the batch counter that all storage workers of this
 * incarnation share (an Atomics counter over a SharedArrayBuffer) and the channel on which the
 * cluster thread hears of every batch's end (BatchNotice).
 */
import type { StorageClusterData } from '../../src/protocol/cluster.ts';

export interface ClusterLink {
  readonly data: StorageClusterData;
  readonly counter: Int32Array;
  readonly channel: InstanceType<typeof BroadcastChannel>;
}

export function openClusterLink(data: StorageClusterData): ClusterLink {
  const channel = new BroadcastChannel(data.channel);
  channel.unref();
  return { data, counter: new Int32Array(data.batchCounter), channel };
}
