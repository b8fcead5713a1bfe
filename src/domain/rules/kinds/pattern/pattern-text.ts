/**
 * @module A PATTERN rule as one readable line, stored on each alert:
 * `by userId within 5 min: login[metadata.success == false] x3 -> login[metadata.success == true]`.
 */
import { OPERATORS } from '../../rule-types.ts';
import type { PatternCondition, PatternConfig } from './pattern-config.ts';

const conditionText = (c: PatternCondition): string =>
  `${c.field} ${OPERATORS[c.operator]} ${JSON.stringify(c.value)}`;

const eventText = (eventType: string, where: readonly PatternCondition[]): string =>
  where.length === 0 ? eventType : `${eventType}[${where.map(conditionText).join(' && ')}]`;

export function patternText(config: PatternConfig): string {
  const steps = config.steps.map((step, i) => {
    const arrow = i === 0 ? '' : step.contiguity === 'strict' ? ' => ' : ' -> ';
    const times = step.times.min === 1 ? '' : ` x${step.times.min}`;
    return `${arrow}${eventText(step.eventType, step.where)}${times}`;
  });
  const absent =
    config.absent === undefined
      ? ''
      : `, then no ${eventText(config.absent.eventType, config.absent.where)} within ${config.absent.withinMinutes} min`;
  return `by ${config.partitionBy} within ${config.withinMinutes} min: ${steps.join('')}${absent}`;
}
