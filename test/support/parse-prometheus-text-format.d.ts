// Types of parse-prometheus-text-format (it ships none): prom2json's shape, every number as text.
declare module 'parse-prometheus-text-format' {
  export interface Sample {
    readonly value: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly timestamp_ms?: string;
  }
  export interface HistogramSample {
    /** Upper bound (`le`) -> cumulative count. */
    readonly buckets: Readonly<Record<string, string>>;
    readonly count: string;
    readonly sum: string;
    readonly labels?: Readonly<Record<string, string>>;
  }
  export interface Family {
    readonly name: string;
    readonly help: string;
    readonly type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
    readonly metrics: readonly (Sample | HistogramSample)[];
  }
  export default function parsePrometheusTextFormat(text: string): Family[];
}
