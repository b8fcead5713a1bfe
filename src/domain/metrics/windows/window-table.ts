/**
 * @module The values of a WindowReads at one moment (DESIGN 4, README "Values for rules"): each slot
 * is computed on its first read, from per-moment columns (minute-columns.ts) in O(1), or by a pass
 * that fills every slot of its group at once (the keys of a map, the percentiles, the live user
 * windows); distinct users and keys over windows before the current minute are kept across ticks.
 * Use it at once: it reads the live state, which the next recorded batch changes.
 */
import { SEVERITIES, type Severity } from '../../event.ts';
import type { MetricRef } from './metric-names.ts';
import type { LastEventTimes } from '../state/last-event-times.ts';
import type { MetricsState } from '../state/metrics-state.ts';
import { KeyPresence, fillKeyReads, sourceCounts, typeCounts } from './key-windows.ts';
import { MinuteColumns, sumOver } from './minute-columns.ts';
import { PastWindows } from '../state/past-windows.ts';
import { fillPercentiles } from './percentile-windows.ts';
import type { ReadGroups } from './read-groups.ts';
import { SEVERITY_INDEX } from '../state/record-events.ts';
import { currentThroughput } from '../state/throughput.ts';
import { MINUTE_MS, SECOND_MS } from '../time.ts';
import { UserWindows } from './user-windows.ts';
import type { WindowRead } from './window-read.ts';
import type { SlotValues, WindowReads } from './window-reads.ts';

export class WindowTable implements SlotValues {
  /** By slot; NaN until computed. */
  private readonly values: Float64Array;
  private readonly groups: ReadGroups;
  private readonly columns: MinuteColumns;
  private users: UserWindows | undefined;
  private types: KeyPresence | undefined;
  private sources: KeyPresence | undefined;

  /** `now`: the clock reading `state` was advanced to. */
  constructor(
    private readonly state: MetricsState,
    private readonly now: number,
    private readonly reads: WindowReads,
    private readonly lastEvents: LastEventTimes,
  ) {
    this.groups = reads.groups();
    this.values = new Float64Array(reads.size).fill(Number.NaN);
    const inRetention = state.currentMinute - state.oldestMinute + 1;
    this.columns = new MinuteColumns(state, Math.min(this.groups.depth, inRetention));
  }

  get(slot: number): number {
    const value = this.values[slot]!;
    return value === value ? value : this.compute(slot);
  }

  private compute(slot: number): number {
    const read = this.reads.at(slot);
    const { depth } = this.columns;
    // Minutes before the 24 h have no events: the range is clipped to it, as DESIGN 4 says.
    const value = this.valueOf(slot, read, Math.min(read.start, depth), Math.min(read.end, depth));
    this.values[slot] = value;
    return value;
  }

  private valueOf(slot: number, read: WindowRead, start: number, end: number): number {
    const { ref } = read;
    const { columns } = this;
    if (ref.kind === 'indexed') return this.indexed(slot, ref, start, end);
    if (ref.kind === 'silence') {
      return this.lastEvents.secondsSince(ref.scope, ref.key, read.activeSince, this.now);
    }
    const events = sumOver(columns.events, start, end);
    switch (ref.name) {
      case 'totalEvents':
        return events;
      case 'totalErrors':
        return sumOver(columns.errors, start, end);
      case 'errorRate':
        return events === 0 ? 0 : (100 * sumOver(columns.errors, start, end)) / events;
      case 'avgLatency':
        return events === 0 ? 0 : sumOver(columns.latencySum, start, end) / events;
      case 'latencyMin':
        return events === 0 ? 0 : columns.lowestLatency(start, end);
      case 'latencyMax':
        return events === 0 ? 0 : columns.highestLatency(start, end);
      case 'peakThroughput':
        return columns.peakSecond(start, end);
      case 'eventsPerSecond':
        return this.eventsPerSecond(read, start, end);
      case 'currentThroughput':
        // The live 5-second value for the window that ends now; for the window before, the
        // average rate over it (a 5-second rate of the past is not kept beyond the last hour).
        return read.previous
          ? this.eventsPerSecond(read, start, end)
          : currentThroughput(this.state.seconds, this.now);
      case 'uniqueEventTypes':
      case 'uniqueSources':
        return this.keys(ref.name, read, start, end);
      case 'uniqueUsers':
        return this.uniqueUsers(slot, read, start, end);
      case 'latencyP50':
      case 'latencyP95':
      case 'latencyP99':
        fillPercentiles(this.state, columns, this.reads, this.groups.percentiles, this.values);
        return this.values[slot]!;
    }
  }

  private indexed(
    slot: number,
    ref: Extract<MetricRef, { kind: 'indexed' }>,
    start: number,
    end: number,
  ): number {
    if (ref.map === 'eventsBySeverity') {
      const column = (SEVERITIES as readonly string[]).includes(ref.key)
        ? this.columns.severities[SEVERITY_INDEX[ref.key as Severity]]
        : undefined;
      return column === undefined ? 0 : sumOver(column, start, end);
    }
    const { state, groups, columns, values } = this;
    if (ref.map === 'eventsByType') {
      fillKeyReads(groups.types, state.types, typeCounts, columns, values);
    } else {
      fillKeyReads(groups.sources, state.sources, sourceCounts, columns, values);
    }
    return values[slot]!;
  }

  /**
   * Events in the range / seconds it covers: from its first minute's start (or start / reset, if
   * later) to now (live) or to its last minute's end; at least 1 s, and 0 when it lies before start.
   */
  private eventsPerSecond(read: WindowRead, start: number, end: number): number {
    if (start >= end) return 0;
    const { currentMinute, since } = this.state;
    const from = Math.max((currentMinute - end + 1) * MINUTE_MS, since);
    const to = read.previous ? (currentMinute - start + 1) * MINUTE_MS : this.now;
    if (to <= from) return 0;
    return sumOver(this.columns.events, start, end) / Math.max(1, (to - from) / SECOND_MS);
  }

  /** Types or sources (`(other)` included) with at least one event in the range. */
  private keys(
    name: 'uniqueEventTypes' | 'uniqueSources',
    read: WindowRead,
    start: number,
    end: number,
  ): number {
    const { state, columns } = this;
    const presence =
      name === 'uniqueEventTypes'
        ? (this.types ??= new KeyPresence(
            columns,
            typeCounts,
            state.totals.byType,
            state.types.idLimit,
          ))
        : (this.sources ??= new KeyPresence(
            columns,
            sourceCounts,
            state.totals.bySource,
            state.sources.idLimit,
          ));
    if (!read.previous) return presence.live(end);
    return this.past(name, start, end, () => presence.between(start, end));
  }

  /** A value over a window before the current minute: kept across ticks (past-windows.ts). */
  private past(name: string, start: number, end: number, compute: () => number): number {
    const events = sumOver(this.columns.events, start, end);
    if (events === 0) return 0;
    const { pastWindows, currentMinute } = this.state;
    const key = PastWindows.key(name, start, end, events);
    let value = pastWindows.find(currentMinute, key);
    if (value === undefined) {
      value = compute();
      pastWindows.keep(key, value);
    }
    return value;
  }

  private uniqueUsers(slot: number, read: WindowRead, start: number, end: number): number {
    const users = (this.users ??= new UserWindows(this.state, this.columns));
    if (read.previous) return this.past('uniqueUsers', start, end, () => users.over(start, end));
    const exact = users.exactLive(end);
    if (exact !== undefined) return exact;
    users.fillLive(this.reads, this.groups.liveUsers, this.values);
    return this.values[slot]!;
  }
}
