import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { OPERATIONS } from '../../common/api/operations.js';
import type { TestStation } from './station.js';
import { faceTemplate } from './templates.js';

/** Types the token on the console's login screen, as an operator does. */
export async function logIn(page: Page, token: string): Promise<void> {
  await page.getByLabel('Token de API').fill(token);
  await page.getByRole('button', { name: 'Ingresar' }).click();
}

/** Other people already in the gallery, enrolled through the API as an integrator would. */
export async function enrollThroughApi(t: TestStation, persons: readonly (readonly [string, string])[]): Promise<void> {
  const token = t.token(['enroll']);
  for (const [idPersona, file] of persons) {
    const res = await t.post(OPERATIONS.enroll.path, { idPersona, template: await faceTemplate(file) }, token);
    expect(res.status).toBe(200);
  }
}
