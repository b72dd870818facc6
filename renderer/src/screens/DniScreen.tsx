import { useConsole } from '../console-context.js';
import { DocumentInput } from '../ui/face-input.js';
import { Busy, ErrorAlert } from '../ui/status.js';
import { useOperation } from '../ui/use-operation.js';
import { DniResult } from './DniResult.js';

/** Reads an Argentine DNI: fields with their source and validity, portrait, PDF417 and MRZ. */
export function DniScreen() {
  const { t } = useConsole();
  const dni = useOperation('extractDni');
  return (
    <section aria-labelledby="dni-title">
      <h2 id="dni-title">{t('dni.title')}</h2>
      <DocumentInput onDocument={(doc) => void dni.run({ template: doc.template })} />
      {dni.busy && <Busy />}
      <ErrorAlert error={dni.error} />
      {dni.data && <DniResult data={dni.data} />}
    </section>
  );
}
