export declare function enrollAndVerify(
  post: (
    path: string,
    body: unknown,
  ) => Promise<{ success: boolean; data: Record<string, unknown> | null; error: { descripcion: string } }>,
  templates: { enrol: string; again: string; stranger: string },
): Promise<string[]>;
