/** @module The service's name and version, as published by GET /api/v1/events/test. */
import pkg from '../package.json' with { type: 'json' };

export const SERVICE_NAME = 'vigil';
export const SERVICE_VERSION: string = pkg.version;
