import { expect } from 'vitest';
import type { ClientResponse } from './https-client.js';

/** Asserts the contract's envelope shape and returns its parts. */
export function expectEnvelope(res: ClientResponse, status: number) {
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  const body = res.json<{ success: boolean; error: { codigo: number; descripcion: string; tipo: string }; data: unknown }>();
  expect(Object.keys(body).sort()).toEqual(['data', 'error', 'success']);
  expect(res.status, body.error.descripcion).toBe(status);
  if (status === 200) {
    expect(body.success).toBe(true);
    expect(body.error.codigo).toBe(0);
    expect((body.data as { txId?: string }).txId).toBe(res.headers['x-transaction-id']);
  } else {
    expect(body).toMatchObject({ success: false, data: null, error: { codigo: status, tipo: 'ERROR' } });
    expect(body.error.descripcion.length).toBeGreaterThan(10);
  }
  return body;
}
