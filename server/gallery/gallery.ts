import type { PersonSummary } from '../../common/api/admin-schemas.js';
import type { SearchIndex } from '../search/search-index.js';
import type { NewSample, SampleRecord } from '../store/store.js';

/**
 * Persons and their face samples, wherever they live: the station's own SQLite file (one station)
 * or a PostgreSQL database shared by a fleet (docs/fleet-gallery.md). The gallery also keeps the
 * station's search index in step with what is stored, so operations never update it themselves.
 */
export interface Gallery {
  readonly backend: 'sqlite' | 'postgres';
  /** Where the gallery lives, for messages and logs (never a password). */
  readonly location: string;
  /** Fills `index` with every stored embedding of `modelId`, then keeps it in step with every change. */
  attach(index: SearchIndex, modelId: string): Promise<void>;
  /**
   * Adds samples to a person (creating it), atomically with respect to every other enrollment of
   * the gallery, on any station: `screen` runs after every enrollment already committed anywhere
   * is in the index and sees the person's stored samples; a non-null answer aborts with nothing stored.
   */
  enroll<R>(
    idPersona: string,
    samples: NewSample[],
    options: { replace: boolean; screen?: (existing: SampleRecord[]) => R | null | Promise<R | null> },
  ): Promise<EnrollOutcome<R>>;
  getPerson(idPersona: string): Promise<PersonSummary | null>;
  listPersons(query: { prefix?: string | undefined; limit: number; offset: number }): Promise<{
    total: number;
    persons: PersonSummary[];
  }>;
  listSamples(idPersona: string): Promise<SampleRecord[]>;
  /** Number of samples removed, or null when the person does not exist. */
  deletePerson(idPersona: string): Promise<number | null>;
  countPersons(): Promise<number>;
  close(): Promise<void>;
}

export type EnrollOutcome<R> = { stored: true; created: boolean; samples: number } | { stored: false; rejection: R };
