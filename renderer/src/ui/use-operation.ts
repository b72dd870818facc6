import { useCallback, useEffect, useRef, useState } from 'react';
import type { OperationId, RequestOf, ResponseOf } from '../../../common/api/operations.js';
import { callOperation, StationError } from '../api/client.js';
import { useConsole } from '../console-context.js';

export interface OperationState<K extends OperationId> {
  busy: boolean;
  error: string | null;
  data: ResponseOf<K> | null;
  /** Resolves with the answer, or null when the call failed (the error is then in `error`). */
  run: (body: RequestOf<K>) => Promise<ResponseOf<K> | null>;
  reset: () => void;
}

/** One station operation with its progress and failure state; a newer call cancels an older one. */
export function useOperation<K extends OperationId>(id: K): OperationState<K> {
  const { token, t, onUnauthorized } = useConsole();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [data, setData] = useState<ResponseOf<K> | null>(null);
  const current = useRef<AbortController | null>(null);

  useEffect(() => () => current.current?.abort(), []);

  const run = useCallback(
    async (body: RequestOf<K>) => {
      current.current?.abort();
      const controller = new AbortController();
      current.current = controller;
      setBusy(true);
      setError(null);
      setData(null);
      try {
        const result = await callOperation(id, token, body, controller.signal);
        if (controller.signal.aborted) return null;
        setData(result);
        return result;
      } catch (e) {
        if (controller.signal.aborted) return null;
        if (e instanceof StationError && e.codigo === 401) onUnauthorized();
        const message =
          e instanceof StationError && e.codigo === 0 ? t('common.unreachable') : e instanceof Error ? e.message : String(e);
        setError(`${t('common.failed')}: ${message}`);
        return null;
      } finally {
        if (current.current === controller) setBusy(false);
      }
    },
    [id, token, t, onUnauthorized],
  );
  const reset = useCallback(() => {
    setError(null);
    setData(null);
  }, []);
  return { busy, error, data, run, reset };
}
