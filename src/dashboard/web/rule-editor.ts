/**
 * @module The rule editor, for every rule type the server evaluates (THRESHOLD with its AND / OR /
 * NOT tree, RATE_CHANGE): as you type, the draft goes to POST /api/v1/rules/test, and the server's
 * own validation messages, warnings and simulation against the live metrics are shown. Admin
 * keys may save (create or update).
 */
import { html } from 'htm/preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { VNode } from 'preact';
import { describeError, ApiError } from './api.ts';
import { fromConfig, newLeaf, numberOrText, toConfig, type Draft } from './condition-draft.ts';
import { ConditionNode } from './condition-editor.ts';
import { Backtest } from './backtest.ts';
import { SelectField, TextField } from './fields.ts';
import { isAdmin, type Session } from './session.ts';
import type { RuleRecord } from '../../domain/rules/rule.ts';
import {
  CONDITION_RULE_TYPES,
  RULE_SEVERITIES,
  type RuleSeverity,
  type RuleType,
} from '../../domain/rules/rule-types.ts';
import { INDEXED_METRICS, SCALAR_METRICS } from '../../domain/metrics/windows/metric-names.ts';

/** The fields of a rule test result (spec 2.9) the editor shows. */
interface TestResult {
  readonly success: boolean;
  readonly message: string;
  readonly validationErrors: readonly string[];
  readonly recommendations: readonly string[];
  readonly simulationResult: {
    readonly wouldTrigger: boolean;
    readonly currentValues: Readonly<Record<string, number>>;
    readonly matchedConditions: readonly string[];
  } | null;
}

type Check =
  | { readonly kind: 'idle' }
  /** No name typed yet: nothing to check, and nothing wrong yet either. */
  | { readonly kind: 'unnamed' }
  | { readonly kind: 'result'; readonly result: TestResult }
  | { readonly kind: 'refused'; readonly messages: readonly string[] };

const DEBOUNCE_MS = 300;
const METRIC_SUGGESTIONS = [...SCALAR_METRICS, ...INDEXED_METRICS.map((m) => `${m}[…]`)];

/** `Now: would not fire (errorRate = 23.077, latencyP95 = 1)`. */
function simulation(sim: NonNullable<TestResult['simulationResult']>): string {
  const values = Object.entries(sim.currentValues).map(
    ([metric, value]) => `${metric} = ${Number(value.toFixed(3))}`,
  );
  return `Now: ${sim.wouldTrigger ? 'would fire' : 'would not fire'} (${values.join(', ')})`;
}

export interface RuleEditorProps {
  readonly session: Session;
  /** null: a new rule. */
  readonly rule: RuleRecord | null;
  /** A new rule's start (the explorer's "Make a rule from this"): its name and one condition. */
  readonly prefill?: RulePrefill | null;
  readonly onDone: () => void;
}

export interface RulePrefill {
  readonly name: string;
  readonly metric: string;
  readonly threshold: string;
  readonly windowMinutes: string;
}

/** The prefill in `#/rules?new=1&name=...&metric=...&threshold=...&windowMinutes=...`, or null. */
export function prefillOfHash(hash: string): RulePrefill | null {
  const at = hash.indexOf('?');
  const params = new URLSearchParams(at < 0 ? '' : hash.slice(at + 1));
  if (params.get('new') !== '1') return null;
  return {
    name: params.get('name') ?? '',
    metric: params.get('metric') ?? 'errorRate',
    threshold: params.get('threshold') ?? '1',
    windowMinutes: params.get('windowMinutes') ?? '',
  };
}

function messagesOf(error: unknown): string[] {
  if (error instanceof ApiError && Object.keys(error.fields).length > 0)
    return Object.entries(error.fields).map(([field, message]) => `${field}: ${message}`);
  return [describeError(error)];
}

export function RuleEditor({ session, rule, prefill = null, onDone }: RuleEditorProps): VNode {
  const [name, setName] = useState(rule?.name ?? prefill?.name ?? '');
  const [nameTouched, setNameTouched] = useState(false);
  const [description, setDescription] = useState(rule?.description ?? '');
  const [ruleType, setRuleType] = useState<RuleType>(rule?.ruleType ?? 'THRESHOLD');
  const [severity, setSeverity] = useState<RuleSeverity>(rule?.severity ?? 'MEDIUM');
  const [root, setRoot] = useState<Draft>(() =>
    rule !== null
      ? fromConfig(rule.ruleConfig)
      : prefill === null
        ? newLeaf()
        : {
            ...newLeaf(),
            metric: prefill.metric,
            threshold: prefill.threshold,
            windowMinutes: prefill.windowMinutes,
          },
  );
  const [channels, setChannels] = useState(rule?.notificationChannels.join(', ') ?? '');
  const [suppression, setSuppression] = useState(String(rule?.suppressionWindowMinutes ?? 30));
  const [version, setVersion] = useState(0);
  const [check, setCheck] = useState<Check>({ kind: 'idle' });
  const [saveError, setSaveError] = useState<readonly string[]>([]);
  const touch = (): void => setVersion((v) => v + 1);

  const body = useMemo(
    () => ({
      name,
      ruleType,
      severity,
      description: description === '' ? null : description,
      ruleConfig: toConfig(root),
      // `slack`, `slack:oncall`, ... as typed: the server names a bad entry.
      notificationChannels: channels
        .split(',')
        .map((c) => c.trim())
        .filter((c) => c !== ''),
      suppressionWindowMinutes: numberOrText(suppression),
    }),
    [name, ruleType, severity, description, channels, suppression, root, version],
  );

  useEffect(() => {
    // The server would refuse the test with a 400 for the name alone: say it here instead.
    // Before anything is typed that is no mistake yet: a hint, not an error.
    if (name.trim() === '') {
      setCheck(
        nameTouched
          ? { kind: 'refused', messages: ['Give the rule a name to check it'] }
          : { kind: 'unnamed' },
      );
      return undefined;
    }
    let current = true;
    const timer = setTimeout(() => {
      session.api.send<TestResult>('/api/v1/rules/test', body).then(
        (result) => current && setCheck({ kind: 'result', result }),
        (error: unknown) => current && setCheck({ kind: 'refused', messages: messagesOf(error) }),
      );
    }, DEBOUNCE_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [body]);

  const save = (e: Event): void => {
    e.preventDefault();
    const request =
      rule === null
        ? session.api.send('/api/v1/rules', body)
        : session.api.send(`/api/v1/rules/${rule.id}`, body, 'PUT');
    request.then(onDone, (error: unknown) => setSaveError(messagesOf(error)));
  };

  // RATE_CHANGE takes one condition: a group is turned back into its first leaf.
  const single = ruleType === 'RATE_CHANGE';
  const shown = single && root.kind === 'group' ? (root.conditions[0] ?? newLeaf()) : root;
  const result = check.kind === 'result' ? check.result : null;
  const problems =
    check.kind === 'refused'
      ? check.messages
      : result !== null && !result.success
        ? result.validationErrors
        : [];
  const changeType = (value: string): void => {
    if (value === 'RATE_CHANGE' && root.kind === 'group') setRoot(shown);
    setRuleType(value as RuleType);
  };
  return html`<form class="view editor" onSubmit=${save} aria-label="Rule editor">
    <h2>${rule === null ? 'New rule' : `Edit rule ${rule.id}`}</h2>
    <datalist id="metric-names">
      ${METRIC_SUGGESTIONS.map((m) => html`<option value=${m} />`)}
    </datalist>
    <div class="fields">
      <${TextField}
        label="Name"
        name="name"
        value=${name}
        onValue=${(v: string) => {
          setName(v);
          setNameTouched(true);
        }}
      />
      <${SelectField}
        label="Type"
        name="ruleType"
        value=${ruleType}
        onValue=${changeType}
        options=${[...CONDITION_RULE_TYPES]}
      />
      <${SelectField}
        label="Severity"
        name="severity"
        value=${severity}
        onValue=${(v: string) => setSeverity(v as RuleSeverity)}
        options=${RULE_SEVERITIES}
      />
      <${TextField}
        class="wide"
        label="Description"
        name="description"
        value=${description}
        onValue=${setDescription}
      />
      <${TextField}
        label="Channels (comma-separated)"
        name="notificationChannels"
        value=${channels}
        onValue=${setChannels}
        placeholder="slack, webhook:ops"
      />
      <${TextField}
        label="Suppression (min)"
        name="suppressionWindowMinutes"
        value=${suppression}
        onValue=${setSuppression}
        size=${6}
      />
    </div>
    <h3>Condition${single ? ' (percent change between two windows)' : ''}</h3>
    <${ConditionNode}
      draft=${shown}
      path="ruleConfig"
      onChange=${touch}
      onWrap=${single || root.kind === 'group' ? undefined : () => setRoot({ kind: 'group', logicalOperator: 'AND', conditions: [root] })}
    />
    ${
      // A second condition straight away: the one condition and a new one, ANDed.
      single || root.kind === 'group'
        ? ''
        : html`<button
            type="button"
            class="add-condition"
            onClick=${() => setRoot({ kind: 'group', logicalOperator: 'AND', conditions: [root, newLeaf()] })}
          >
            Add condition
          </button>`
    }
    <section class="check" aria-live="polite" aria-label="Validation">
      ${
        problems.length > 0
          ? html`<ul class="error validation" role="alert">
              ${problems.map((m) => html`<li>${m}</li>`)}
            </ul>`
          : check.kind === 'unnamed'
            ? html`<p class="muted" data-unnamed="true">Checks start once the rule has a name.</p>`
            : result === null
              ? html`<p class="muted">Checking…</p>`
              : html`<div class="valid">
                  <p data-valid="true">${result.message}</p>
                  ${
                    result.simulationResult === null
                      ? ''
                      : html`<p>${simulation(result.simulationResult)}</p>`
                  }
                  ${
                    result.recommendations.length === 0
                      ? ''
                      : html`<ul class="muted">
                          ${result.recommendations.map((r) => html`<li>${r}</li>`)}
                        </ul>`
                  }
                </div>`
      }
    </section>
    <${Backtest} session=${session} rule=${body} ruleId=${rule?.id ?? null} />
    <details>
      <summary>ruleConfig as JSON</summary>
      <pre>${JSON.stringify(body.ruleConfig, null, 2)}</pre>
    </details>
    ${
      saveError.length === 0
        ? ''
        : html`<ul class="error" role="alert">
            ${saveError.map((m) => html`<li>${m}</li>`)}
          </ul>`
    }
    <div class="actions">
      ${isAdmin(session) ? html`<button type="submit" class="primary">${rule === null ? 'Create rule' : 'Save rule'}</button>` : ''}
      <button type="button" onClick=${onDone}>Cancel</button>
    </div>
  </form>`;
}
