/**
 * @module The one registry of rule kinds (issue 31). Generic code asks it for the kind of a
 * `ruleType` instead of switching on the name; adding a kind is its folder plus one line here
 * (and its name in names.ts). The default registry is built on first use, so that a kind module
 * may import generic helpers that import this file without an initialisation cycle.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { ANOMALY_KIND } from './anomaly/anomaly-kind.ts';
import { PATTERN_KIND } from './pattern/pattern-kind.ts';
import { RATE_CHANGE_KIND } from './rate-change/rate-change-kind.ts';
import type { AnyRuleKind } from './rule-kind.ts';
import { THRESHOLD_KIND } from './threshold/threshold-kind.ts';

export class RuleKindRegistry {
  private readonly kinds = new Map<string, AnyRuleKind>();
  private readonly checks = new Map<string, TypeCheck<TSchema>>();

  constructor(kinds: readonly AnyRuleKind[] = []) {
    for (const kind of kinds) this.register(kind);
  }

  register(kind: AnyRuleKind): this {
    if (this.kinds.has(kind.type)) throw new Error(`rule kind ${kind.type} is registered twice`);
    this.kinds.set(kind.type, kind);
    return this;
  }

  has(type: string): boolean {
    return this.kinds.has(type);
  }

  /** The kind of `type`; throws on a type no kind serves (only unvalidated input can hold one). */
  get(type: string): AnyRuleKind {
    const kind = this.kinds.get(type);
    if (kind === undefined) throw new Error(`no rule kind ${type} is registered`);
    return kind;
  }

  get types(): readonly string[] {
    return [...this.kinds.keys()];
  }

  get all(): readonly AnyRuleKind[] {
    return [...this.kinds.values()];
  }

  /** The kind's config schema, compiled once. */
  check(type: string): TypeCheck<TSchema> {
    let check = this.checks.get(type);
    if (check === undefined) {
      check = TypeCompiler.Compile(this.get(type).configSchema);
      this.checks.set(type, check);
    }
    return check;
  }
}

let defaultKinds: RuleKindRegistry | undefined;

/** The service's kinds. */
export const ruleKinds = (): RuleKindRegistry =>
  (defaultKinds ??= new RuleKindRegistry([
    THRESHOLD_KIND,
    RATE_CHANGE_KIND,
    ANOMALY_KIND,
    PATTERN_KIND,
  ]));

/** Shorthand: the kind of `type` in the service's registry. */
export const kindOf = (type: string): AnyRuleKind => ruleKinds().get(type);

/** A ruleConfig of any registered kind, for documents: one of the kinds' schemas. */
export const anyRuleConfigSchema = (registry = ruleKinds()): TSchema =>
  Type.Union(registry.all.map((kind) => kind.configSchema));
