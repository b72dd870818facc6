// TLS's entry point: the station's certificate, made once and kept.
export { loadOrCreateTls } from './certificate.js';
