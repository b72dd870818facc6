import { useEffect, useState } from 'react';
import type { ResponseOf } from '../../../common/api/operations.js';
import { callOperation, StationError } from '../api/client.js';

type Persons = ResponseOf<'listPersons'>;

/** The station at a glance: who is enrolled. The operation screens build on this shell. */
export function StationScreen({ token, onLogout }: { token: string; onLogout: () => void }) {
  const [persons, setPersons] = useState<Persons | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    callOperation('listPersons', token, { limit: 50 }, controller.signal)
      .then(setPersons)
      .catch((e: unknown) => {
        if (controller.signal.aborted) return;
        if (e instanceof StationError && e.codigo === 401) onLogout();
        else setError(e instanceof Error ? e.message : String(e));
      });
    return () => controller.abort();
  }, [token, onLogout]);

  return (
    <main>
      <header>
        <h1>Enrolla</h1>
        <button onClick={onLogout}>Salir</button>
      </header>
      <section>
        <h2>Galería</h2>
        {error && (
          <p role="alert" className="error">
            {error}
          </p>
        )}
        {!persons && !error && <p aria-busy="true">Cargando…</p>}
        {persons && (
          <>
            <p data-testid="persons-total">{persons.total} personas enroladas</p>
            <ul>
              {persons.persons.map((p) => (
                <li key={p.idPersona}>
                  {p.idPersona} · {p.samples} muestras
                </li>
              ))}
            </ul>
          </>
        )}
      </section>
    </main>
  );
}
