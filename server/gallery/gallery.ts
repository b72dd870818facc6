import type { PersonSummary } from '../../common/api/admin-schemas.js';
import type { SearchIndex } from '../search/search-index.js';
import type { NewSample, SampleRecord } from '../store/store.js';

/** A change of a shared gallery's feed that an index reflects: its number and what it was, to recognise it. */
export interface FeedPosition {
  seq: number;
  /** The person and time of that change (null: no change yet); a restored database reuses numbers. */
  idPersona: string | null;
  at: string | null;
}

/**
 * Persons and their face samples, wherever they live: the station's own SQLite file (one station)
 * or a PostgreSQL database shared by a fleet (docs/fleet-gallery.md). The gallery also keeps the
 * station's search index in step with what is stored, so operations never update it themselves.
 */
export interface Gallery {
  readonly backend: 'sqlite' | 'postgres';
  /** Where the gallery lives, for messages and logs (never a password). */
  readonly location: string;
  /**
   * Fills `index` with every stored embedding of `modelId`, then keeps it in step with every change.
   * `prefilled`: the index already holds the gallery (a matching snapshot); only follow changes.
   * `from` (shared gallery): the index holds the gallery as of that change (its snapshot); follow
   * from there, or fill it again if the gallery cannot be followed from there.
   */
  attach(index: SearchIndex, modelId: string, options?: { prefilled?: boolean; from?: FeedPosition }): Promise<void>;
  /**
   * Adds samples to a person (creating it), atomically with respect to every other enrollment of
   * the gallery, on any station. `screen` decides whether to go on (a non-null answer aborts with
   * nothing stored); its last call runs inside the write lock, once every enrollment committed
   * anywhere is known, and sees the person's stored samples: none when `replace` (they are not
   * compared with, and one that no longer opens must not block its own replacement).
   */
  enroll<R>(
    idPersona: string,
    samples: NewSample[],
    options: { replace: boolean; screen?: Screen<R> },
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

/**
 * `candidates: 'index'`: compare with the whole search index. A map: compare only with these
 * persons' current embeddings (those changed since an earlier call searched the whole index);
 * that keeps the write lock short whatever the gallery's size.
 */
export interface ScreenInput {
  existing: SampleRecord[];
  candidates: 'index' | ReadonlyMap<string, readonly Float32Array[]>;
}

export type Screen<R> = (input: ScreenInput) => R | null | Promise<R | null>;

export type EnrollOutcome<R> = { stored: true; created: boolean; samples: number } | { stored: false; rejection: R };
