/**
 * @module A compile-time tie between a response schema (what OpenAPI documents and tests check
 * answers against) and the record type declared once in src/domain: the schema must describe
 * exactly that record's fields, with values the record accepts, or the build fails.
 */
import type { Static, TSchema } from '@sinclair/typebox';

type SameKeys<A, B> = [keyof A] extends [keyof B]
  ? [keyof B] extends [keyof A]
    ? true
    : false
  : false;
type Describes<S extends TSchema, R> = [Static<S>] extends [R] ? SameKeys<Static<S>, R> : false;

/** `describes<EventRecord>()(Type.Object({...}))` returns the schema, if it describes the record. */
export const describes =
  <R>() =>
  <S extends TSchema>(schema: S, ..._mismatch: Describes<S, R> extends true ? [] : [never]): S =>
    schema;
