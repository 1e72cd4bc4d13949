// @annals/client: the annals HTTP API from TypeScript and JavaScript (docs/CLIENTS.md).
export { Client, type CaptureSink } from "./client.js";
export { type ClientOptions } from "./transport.js";
export { BestEffort, Recorder, type RecorderOptions, type Warn } from "./capture.js";
export { AnnalsError, API_VERSION, API_VERSION_HEADER } from "./errors.js";
export type * from "./types.js";

/** The API routes this client calls (clients/drift_test.go holds them to docs/openapi.yaml). */
export const ROUTES = [
  "POST /v1/history",
  "POST /v1/sessions",
  "POST /v1/sessions/{id}/entries",
  "POST /v1/sessions/{id}/truncate",
  "POST /v1/runs",
  "POST /v1/capture",
  "POST /v1/ingest",
  "GET /v1/sessions/{id}/export",
  "GET /v1/sessions/{id}/runs",
  "GET /healthz",
  "POST /v1/admin/embeddings",
] as const;
