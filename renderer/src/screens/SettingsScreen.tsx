import { useEffect, useState, type FormEvent } from 'react';
import { useConsole } from '../console-context.js';
import { formatDateTime } from '../i18n.js';
import type { BackupsStatus } from '../../../common/api/admin-schemas.js';
import type { DeskPrefs } from '../prefs.js';
import { Badge, Busy, ErrorAlert } from '../ui/status.js';
import { useOperation } from '../ui/use-operation.js';

type Cameras = { deviceId: string; label: string }[];

/** Video inputs of this computer; labels stay empty until the browser has been given camera access. */
function useCameras(): Cameras | null {
  const [cameras, setCameras] = useState<Cameras | null>(null);
  useEffect(() => {
    const media = navigator.mediaDevices as MediaDevices | undefined;
    if (!media?.enumerateDevices) {
      setCameras([]);
      return;
    }
    media
      .enumerateDevices()
      .then((devices) =>
        setCameras(
          devices.filter((d) => d.kind === 'videoinput').map((d, i) => ({ deviceId: d.deviceId, label: d.label || `#${i + 1}` })),
        ),
      )
      .catch(() => setCameras([]));
  }, []);
  return cameras;
}

const asText = (n: number | undefined) => (n === undefined ? '' : String(n));
function parseOptional(text: string): number | undefined {
  if (text.trim() === '') return undefined;
  const n = Number(text);
  return Number.isFinite(n) ? Math.min(100, Math.max(0, n)) : undefined;
}

/** The station's settings (read only here) and this desk's thresholds and camera. */
export function SettingsScreen() {
  const { t, locale, prefs, setPrefs } = useConsole();
  const settings = useOperation('stationSettings');
  const status = useOperation('stationStatus');
  const backupNow = useOperation('createBackup');
  const cameras = useCameras();
  const [verify, setVerify] = useState(asText(prefs.verifyThreshold));
  const [identify, setIdentify] = useState(asText(prefs.identifyThreshold));
  const [spoof, setSpoof] = useState(asText(prefs.spoofThreshold));
  const [maxResults, setMaxResults] = useState(String(prefs.maxResults));
  const [deviceId, setDeviceId] = useState(prefs.deviceId ?? '');
  const [saved, setSaved] = useState(false);
  const { run } = settings;

  useEffect(() => {
    void run({});
  }, [run]);
  const runStatus = status.run;
  useEffect(() => {
    void runStatus({});
  }, [runStatus]);

  function save(event: FormEvent) {
    event.preventDefault();
    const next: DeskPrefs = { maxResults: Math.min(100, Math.max(1, Math.round(Number(maxResults)) || 5)) };
    const v = parseOptional(verify);
    const i = parseOptional(identify);
    const s = parseOptional(spoof);
    if (v !== undefined) next.verifyThreshold = v;
    if (i !== undefined) next.identifyThreshold = i;
    if (s !== undefined) next.spoofThreshold = s;
    if (deviceId) next.deviceId = deviceId;
    setPrefs(next);
    setSaved(true);
  }

  const data = settings.data;
  const backupsText = (b: BackupsStatus) => {
    if (!b.enabled) return t('settings.backupsOff');
    const last = !b.last
      ? t('settings.backupNone')
      : b.last.error
        ? t('settings.backupFailed', { at: formatDateTime(locale, b.last.at), error: b.last.error })
        : t('settings.backupLast', { at: formatDateTime(locale, b.last.at), persons: b.last.persons ?? 0 });
    return b.nextDue ? `${last}; ${t('settings.backupNext', { at: formatDateTime(locale, b.nextDue) })}` : last;
  };
  return (
    <section aria-labelledby="settings-title">
      <h2 id="settings-title">{t('settings.title')}</h2>
      <section className="panel" aria-label={t('settings.station')} data-testid="station-settings">
        <h3>{t('settings.station')}</h3>
        {settings.busy && <Busy label={t('common.loading')} />}
        <ErrorAlert error={settings.error} />
        {data && (
          <dl className="kv">
            <dt>{t('settings.lan')}</dt>
            <dd>
              <Badge on={!data.network.lanExposed}>{data.network.lanExposed ? t('settings.lanYes') : t('settings.lanNo')}</Badge>
            </dd>
            <dt>{t('settings.address')}</dt>
            <dd>
              {data.network.host}:{data.network.port}
            </dd>
            <dt>{t('settings.tls')}</dt>
            <dd>{data.network.tls ? t('common.yes') : t('common.no')}</dd>
            <dt>{t('settings.verifyThreshold')}</dt>
            <dd>
              {data.matching.verifyThreshold} (FMR {data.matching.verifyFmr})
            </dd>
            <dt>{t('settings.identifyThreshold')}</dt>
            <dd>FPIR {data.matching.identifyFpir}</dd>
            <dt>{t('settings.spoofThreshold')}</dt>
            <dd>{data.matching.spoofThreshold}</dd>
            <dt>{t('settings.spoofSingleFrame')}</dt>
            <dd>{t(`settings.spoofSingleFrame.${data.matching.spoofSingleFrame}`)}</dd>
            {status.data && (
              <>
                <dt>{t('settings.backups')}</dt>
                <dd data-testid="backups">{backupsText(status.data.backups)}</dd>
              </>
            )}
          </dl>
        )}
        <p className="small">{t('settings.howToChange')}</p>
        <button type="button" onClick={() => void backupNow.run({})} disabled={backupNow.busy}>
          {t('settings.backupNow')}
        </button>
        {backupNow.busy && <Busy />}
        <ErrorAlert error={backupNow.error} />
        {backupNow.data && (
          <p role="status" data-testid="backup-made">
            {t('settings.backupMade', { file: backupNow.data.file, persons: backupNow.data.persons })}
          </p>
        )}
      </section>
      <form className="form panel" onSubmit={save} onChange={() => setSaved(false)}>
        <h3>{t('settings.local')}</h3>
        <label>
          {t('settings.verifyThreshold')}
          <input type="number" min={0} max={100} step={0.1} value={verify} onChange={(e) => setVerify(e.target.value)} />
        </label>
        <label>
          {t('settings.identifyThreshold')}
          <input type="number" min={0} max={100} step={0.1} value={identify} onChange={(e) => setIdentify(e.target.value)} />
        </label>
        <label>
          {t('settings.spoofThreshold')}
          <input type="number" min={0} max={100} step={0.1} value={spoof} onChange={(e) => setSpoof(e.target.value)} />
        </label>
        <label>
          {t('settings.maxResults')}
          <input type="number" min={1} max={100} step={1} value={maxResults} onChange={(e) => setMaxResults(e.target.value)} />
        </label>
        <label>
          {t('settings.camera')}
          <select value={deviceId} onChange={(e) => setDeviceId(e.target.value)}>
            <option value="">{t('settings.cameraDefault')}</option>
            {cameras?.map((c) => (
              <option key={c.deviceId} value={c.deviceId}>
                {c.label}
              </option>
            ))}
          </select>
        </label>
        {cameras?.length === 0 && <p className="small">{t('settings.cameraNone')}</p>}
        <button type="submit" className="primary">
          {t('settings.save')}
        </button>
        {saved && (
          <p role="status" className="notice">
            {t('settings.saved')}
          </p>
        )}
      </form>
    </section>
  );
}
