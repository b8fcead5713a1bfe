/**
 * @module The `when` part of an ANOMALY rule's DRL: the series and its band as one fact pattern
 * with a constraint per key, and the alert window's share compared with minFraction; and its
 * parser, so that the generated text is checked by reading it back.
 */
import { javaDouble, javaString, type DrlTokenReader } from '../../drl-syntax.ts';
import { ANOMALY_KEYS, type AnomalyConfig } from './anomaly-config.ts';
import { validateAnomalyConfig } from './anomaly-validation.ts';

/** A valid ANOMALY config (not one stored before ANOMALY had keys, which keeps a never-firing stub). */
export const isAnomalyConfig = (config: object): config is AnomalyConfig =>
  validateAnomalyConfig(config as Record<string, unknown>).ok;

/** The keys written as patterns (alertWindowMinutes and minFraction go into the eval). */
const PATTERN_KEYS = ANOMALY_KEYS.filter((k) => k !== 'alertWindowMinutes' && k !== 'minFraction');
const INTEGER_KEYS: readonly string[] = ['bucketMinutes', 'minHistoryMinutes'];
const STRING_KEYS: readonly string[] = [
  'metric',
  'eventType',
  'source',
  'algorithm',
  'seasonality',
  'timezone',
  'direction',
];

const literal = (key: string, value: string | number): string =>
  typeof value === 'string'
    ? javaString(value)
    : INTEGER_KEYS.includes(key)
      ? String(value)
      : javaDouble(value);

/** The lines after `$m : MetricsSnapshot()`, indented by `pad`. */
export function anomalyWhenLines(config: AnomalyConfig, pad: string): string[] {
  const constraints = PATTERN_KEYS.flatMap((key) => {
    const value = config[key];
    return value === undefined ? [] : [`${key} == ${literal(key, value)}`];
  });
  return [
    `${pad}$a : AnomalyBand( ${constraints.join(', ')} ) from $m`,
    `${pad}eval( $a.outsideFraction(${config.alertWindowMinutes}) >= ${javaDouble(config.minFraction)} )`,
  ];
}

/** The judged keys of an ANOMALY config as the DRL holds them (lifecycle keys are attributes). */
export type AnomalyWhen = Omit<AnomalyConfig, 'pendingSeconds' | 'keepFiringSeconds'>;

/** Reads the lines anomalyWhenLines wrote; a key out of order or unknown is a syntax error. */
export function parseAnomalyWhen(p: DrlTokenReader): AnomalyWhen {
  const out: Record<string, string | number> = {};
  p.take('ident', '$a');
  p.take('punct', ':');
  p.take('ident', 'AnomalyBand');
  p.take('punct', '(');
  let at = 0;
  for (;;) {
    const key = p.take('ident').text;
    const index = PATTERN_KEYS.indexOf(key as (typeof PATTERN_KEYS)[number], at);
    if (index === -1) p.fail(`an ANOMALY key after the previous one, not '${key}'`);
    at = index + 1;
    p.take('punct', '==');
    if (STRING_KEYS.includes(key)) out[key] = p.take('string').text;
    else {
      const number = p.take('number').text;
      if (number.endsWith('L') || (INTEGER_KEYS.includes(key) && !/^\d+$/.test(number)))
        p.fail(INTEGER_KEYS.includes(key) ? 'an int literal' : 'a double literal');
      out[key] = Number(number);
    }
    if (p.is('punct', ')')) break;
    p.take('punct', ',');
  }
  p.take('punct', ')');
  p.take('ident', 'from');
  p.take('ident', '$m');
  p.take('ident', 'eval');
  p.take('punct', '(');
  p.take('ident', '$a');
  p.take('punct', '.');
  p.take('ident', 'outsideFraction');
  p.take('punct', '(');
  const window = p.take('number').text;
  if (!/^\d+$/.test(window)) p.fail('an int literal');
  p.take('punct', ')');
  p.take('punct', '>=');
  const fraction = p.take('number').text;
  if (fraction.endsWith('L')) p.fail('a double literal');
  p.take('punct', ')');
  return {
    ...out,
    alertWindowMinutes: Number(window),
    minFraction: Number(fraction),
  } as AnomalyWhen;
}

/** Same judged keys, whatever their order (a config read back from jsonb has its keys sorted). */
export function sameAnomalyWhen(a: AnomalyWhen, b: AnomalyWhen): boolean {
  return ANOMALY_KEYS.every((key) => Object.is(a[key], b[key]));
}
