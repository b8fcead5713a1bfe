/**
 * @module OTLP/HTTP's protobuf encoding for POST /v1/logs, by protobufjs from the official
 * definitions (proto-files.ts): the request decoded into the same plain shape as its JSON encoding
 * (lowerCamelCase fields, 64-bit integers as decimal strings, enums as numbers, trace and span
 * ids as hex), and the answers (ExportLogsServiceResponse, google.rpc.Status) encoded.
 */
import protobuf from 'protobufjs';
import { OTLP_LOGS_PROTO_FILES } from './proto-files.ts';

/**
 * google.rpc.Status (googleapis google/rpc/status.proto) without its `details` field, which
 * Vigil never fills: a repeated field left out encodes to the same bytes.
 */
const STATUS_PROTO = `syntax = "proto3";
package google.rpc;
message Status { int32 code = 1; string message = 2; }`;

const root = new protobuf.Root();
for (const text of [...Object.values(OTLP_LOGS_PROTO_FILES), STATUS_PROTO]) {
  protobuf.parse(text, root);
}
root.resolveAll();

const Request = root.lookupType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest');
const Response = root.lookupType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceResponse');
const Status = root.lookupType('google.rpc.Status');

const TO_OBJECT: protobuf.IConversionOptions = { longs: String, enums: Number, bytes: String };

/** The ids that OTLP's JSON encoding writes as hex, unlike its other bytes (base64). */
const HEX_IDS = ['traceId', 'spanId'];

/** The request as its JSON encoding would carry it; throws on bytes that are not one. */
export function decodeLogsRequest(bytes: Uint8Array): unknown {
  const object = Request.toObject(Request.decode(bytes), TO_OBJECT);
  for (const resourceLogs of (object.resourceLogs ?? []) as { scopeLogs?: unknown[] }[]) {
    for (const scopeLogs of (resourceLogs.scopeLogs ?? []) as { logRecords?: unknown[] }[]) {
      for (const record of (scopeLogs.logRecords ?? []) as Record<string, unknown>[]) {
        for (const id of HEX_IDS) {
          const value = record[id];
          if (typeof value === 'string') record[id] = Buffer.from(value, 'base64').toString('hex');
        }
      }
    }
  }
  return object;
}

/** An ExportLogsServiceResponse: empty, or with its partial success. */
export const encodeLogsResponse = (rejected: number, errorMessage: string): Uint8Array =>
  Response.encode(
    Response.fromObject(
      rejected === 0 && errorMessage === ''
        ? {}
        : { partialSuccess: { rejectedLogRecords: rejected, errorMessage } },
    ),
  ).finish();

/** A google.rpc.Status: the body of a failed export. */
export const encodeStatus = (code: number, message: string): Uint8Array =>
  Status.encode(Status.fromObject({ code, message })).finish();

/** A Status decoded, for clients of Vigil's answers (the tests). */
export const decodeStatus = (bytes: Uint8Array): { code?: number; message?: string } =>
  Status.toObject(Status.decode(bytes));

/** An ExportLogsServiceResponse decoded (the tests). */
export const decodeLogsResponse = (bytes: Uint8Array): Record<string, unknown> =>
  Response.toObject(Response.decode(bytes), TO_OBJECT);
