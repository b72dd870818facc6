// What the release check asks of a running station, through its API only: one person enrolled
// and verified with two photos of them, and a stranger refused. Shared by the packaged-app smoke
// (scripts/smoke-packaged.js) and a test against the headless station, so both ask the same.

/**
 * @param {(path: string, body: unknown) => Promise<{ success: boolean; data: Record<string, unknown> | null; error: { descripcion: string } }>} post
 * @param {{ enrol: string; again: string; stranger: string }} templates face UITemplates
 * @returns {Promise<string[]>} what failed (empty: passed), one line each
 */
export async function enrollAndVerify(post, templates) {
  const problems = [];
  const idPersona = `humo-${Date.now()}`;
  const expect = async (path, body, status) => {
    const answer = await post(path, body);
    const got = answer.success ? answer.data?.status : `error ${answer.error?.descripcion}`;
    if (got !== status) problems.push(`${path}: ${got} (se esperaba ${status})`);
    return answer.data;
  };
  await expect('/biometria/enroll-UI', { idPersona, template: templates.enrol }, 'SUCCESS');
  await expect('/biometria/verificar-UI', { idPersona, template: templates.again }, 'CHECK_CONFIDENCE');
  await expect('/biometria/verificar-UI', { idPersona, template: templates.stranger }, 'NOT_VERIFIED');
  await expect('/biometria/eliminar-persona', { idPersona }, 'SUCCESS');
  return problems;
}
