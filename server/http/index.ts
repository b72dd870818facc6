// HTTP's entry point: the Express app over the operations, and the OpenAPI document it serves.
export { createApp } from './app.js';
export { buildOpenApiDocument } from './openapi/document.js';
