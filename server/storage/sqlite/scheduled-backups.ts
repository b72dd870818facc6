import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { AuditLog } from '../records.js';
import { backupDatabaseOffThread, localAuditEntry, stampedName, stampOf } from './backup.js';

export interface ScheduledBackupsOptions {
  dataDir: string;
  /** Where the copies go (a mounted disk, ideally not the station's). */
  dir: string;
  intervalHours: number;
  /** The newest copies kept; older ones in `dir` made by this schedule are deleted. */
  keep: number;
  key: Buffer | null;
  /** How often the age of the newest copy is looked at, and the wait before the first look. */
  checkEveryMs?: number;
  firstCheckAfterMs?: number;
}

export interface BackupRun {
  at: string;
  /** The copy written, or null when the run failed. */
  file: string | null;
  persons: number | null;
  error: string | null;
}

// Named apart from `enrolla backup`'s copies, which the schedule never deletes.
const PREFIX = 'enrolla-auto';

/**
 * Copies the station's database on a schedule (docs/security.md, "Backups"). The schedule is kept
 * by the copies themselves: a station that runs only in office hours, or restarts, copies when its
 * newest copy in `dir` is older than the interval, not when a timer that a restart resets fires.
 */
export class ScheduledBackups {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<BackupRun> | null = null;
  private lastRun: BackupRun | null = null;

  constructor(
    private readonly audit: AuditLog,
    private readonly o: ScheduledBackupsOptions,
    private readonly onRun: (run: BackupRun) => void = () => undefined,
  ) {}

  start(): void {
    const check = () => void this.runIfDue();
    this.timer = setTimeout(() => {
      check();
      this.timer = setInterval(check, this.o.checkEveryMs ?? 10 * 60_000);
      this.timer.unref();
    }, this.o.firstCheckAfterMs ?? 60_000);
    this.timer.unref();
  }

  /** What the last run did, and when the next is due. */
  status(now = new Date()): { last: BackupRun | null; nextDue: string } {
    const newest = this.copies().at(-1);
    const due = newest ? stampOf(newest) + this.o.intervalHours * 3_600_000 : now.getTime();
    return { last: this.lastRun, nextDue: new Date(Math.max(due, now.getTime())).toISOString() };
  }

  /** A copy now if the newest is older than the interval (or there is none). */
  async runIfDue(now = new Date()): Promise<BackupRun | null> {
    const newest = this.copies().at(-1);
    if (newest && now.getTime() - stampOf(newest) < this.o.intervalHours * 3_600_000) return null;
    return this.run(now);
  }

  /** One copy, then the oldest beyond `keep` deleted. A failure is reported, never thrown. */
  run(now = new Date()): Promise<BackupRun> {
    this.running ??= (async () => {
      const file = path.join(this.o.dir, stampedName(PREFIX, now));
      let run: BackupRun;
      try {
        const summary = await backupDatabaseOffThread(this.o.dataDir, file, this.o.key);
        for (const old of this.copies().slice(0, -this.o.keep)) rmSync(path.join(this.o.dir, old), { force: true });
        run = { at: now.toISOString(), file, persons: summary.persons, error: null };
      } catch (error) {
        run = { at: now.toISOString(), file: null, persons: null, error: (error as Error).message };
      }
      try {
        this.audit.appendAudit(localAuditEntry('createBackup', 'programado', run.error ? 'ERROR' : 'SUCCESS', now));
      } catch (error) {
        // A full or read-only disk: the run's own report (the log, the status) still says what happened.
        run.error ??= `no se pudo anotar en la auditoría: ${(error as Error).message}`;
      }
      this.lastRun = run;
      this.onRun(run);
      return run;
    })().finally(() => (this.running = null));
    return this.running;
  }

  /** Stops the schedule; a copy under way is finished first. */
  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  /** This schedule's copies in `dir`, oldest first (other files there are never touched). */
  private copies(): string[] {
    try {
      return readdirSync(this.o.dir)
        .filter((f) => f.startsWith(`${PREFIX}-`) && !Number.isNaN(stampOf(f)))
        .sort();
    } catch {
      return [];
    }
  }
}
