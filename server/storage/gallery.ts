import type { PersonSummary } from '../../common/api/admin-schemas.js';
import type { BulkTaker } from '../threads/index.js';

export interface NewSample {
  modelId: string;
  embedding: Float32Array;
  quality: number;
  thumbnail: Uint8Array | null;
}

/** A stored sample as a person's record shows it: its thumbnail opened, its embedding left sealed. */
export interface SampleListing {
  id: number;
  idPersona: string;
  modelId: string;
  quality: number;
  thumbnail: Uint8Array | null;
  createdAt: string;
}

/** A stored embedding and its model: what a 1:1 comparison reads (the thumbnail left sealed). */
export interface StoredEmbedding {
  modelId: string;
  embedding: Float32Array;
}

/**
 * Persons and their face samples, wherever they live: the station's own SQLite file (one station)
 * or a PostgreSQL database shared by a fleet (docs/fleet-gallery.md). Each read opens only what
 * its answer uses. The station's search index follows the gallery through `feed` (index-sync.ts).
 */
export interface Gallery {
  readonly backend: 'sqlite' | 'postgres';
  /** Where the gallery lives, for messages and logs (never a password). */
  readonly location: string;
  readonly feed: GalleryFeed;
  /**
   * Adds samples to a person (creating it), atomically with respect to every other enrollment of
   * the gallery, on any station. `screen` decides whether to go on (a non-null answer aborts with
   * nothing stored); its last call runs inside the write lock, once every enrollment committed
   * anywhere is known, and sees the person's stored embeddings: none when `replace` (they are not
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
  /** The person's samples in id order, with their thumbnails (the embeddings stay sealed). */
  listSamples(idPersona: string): Promise<SampleListing[]>;
  /** The person's embeddings in id order (the thumbnails stay sealed). */
  embeddingsOf(idPersona: string): Promise<StoredEmbedding[]>;
  /** Number of samples removed, or null when the person does not exist. */
  deletePerson(idPersona: string): Promise<number | null>;
  countPersons(): Promise<number>;
  close(): Promise<void>;
}

/**
 * `candidates: 'index'`: compare with the whole search index. A map: compare only with these
 * persons' embeddings changed since an earlier call searched the whole index; that keeps the
 * write lock short whatever the gallery's size.
 */
export interface ScreenInput {
  existing: StoredEmbedding[];
  candidates: 'index' | ReadonlyMap<string, readonly Float32Array[]>;
}

export type Screen<R> = (input: ScreenInput) => R | null | Promise<R | null>;

export type EnrollOutcome<R> = { stored: true; created: boolean; samples: number } | { stored: false; rejection: R };

/** Where an index stands in a gallery's history: what its snapshot is labelled with. */
export interface FeedPosition {
  /** The gallery's own random id: a position in another gallery (another or a replaced database) is not followed. */
  gallery: string;
  /** The number of the last change reflected (SQLite: the gallery's version; PostgreSQL: the change's `seq`). */
  seq: number;
  /**
   * The person and time of that change, where numbers may name another change later (a database
   * restored from a backup, PostgreSQL); null where the number alone says it, or before any change.
   */
  idPersona: string | null;
  at: string | null;
}

/** What hears a gallery's changes, in commit order, for one model: an index kept in step. */
export interface ChangeListener {
  /** The person's embeddings of the model are now exactly these (none: gone, or none that opens). */
  changed(idPersona: string, embeddings: readonly Float32Array[]): void;
  /** An enrollment made through this gallery added these to what the person had. */
  added(idPersona: string, embeddings: readonly Float32Array[]): void;
  /** The gallery was read again whole (its changes could not be followed): every person in it was just `changed`; these are all. */
  only(persons: ReadonlySet<string>): void;
}

/** Where a whole read puts the embeddings. */
export interface IndexFill {
  add(idPersona: string, embedding: Float32Array): void;
  /** For a gallery that opens its rows on other threads: what codes them there (null: `add` each). */
  bulk(): BulkTaker | null;
  /** Only each embedding's first values are used: the gallery may hand over just those (or more). */
  leading?: number;
}

/**
 * What a search index follows a gallery by: a whole read as of one position, the persons changed
 * since a position, and every change from a position on. A sample that does not open is left out
 * of every read here and reported (docs/errors.md).
 */
export interface GalleryFeed {
  /** Every stored embedding of `modelId` as of one moment, into `into`; resolves to that moment's position. */
  readAll(modelId: string, into: IndexFill): Promise<FeedPosition>;
  /**
   * The same, read and opened on this thread before it returns (an index found damaged is rebuilt
   * inside the call that found it); null, having read nothing, where the gallery is reached over
   * the network and cannot be.
   */
  readAllNow(modelId: string, add: (idPersona: string, embedding: Float32Array) => void): FeedPosition | null;
  /**
   * The persons changed after `from`, and the position that brings an index to; null when the
   * gallery cannot be followed from there (another gallery, a replaced database, changes forgotten).
   */
  changedSince(from: FeedPosition): Promise<{ persons: string[]; to: FeedPosition } | null>;
  /** Each of `ids` once, with its embeddings of `modelId` now (none for a person gone). */
  embeddingsOfPersons(
    ids: readonly string[],
    modelId: string,
    visit: (idPersona: string, embeddings: Float32Array[]) => void,
  ): Promise<void>;
  /** From now on, every change after `from` goes to `listener` (instead of any earlier one). */
  follow(modelId: string, from: FeedPosition, listener: ChangeListener): Promise<void>;
  /** The position the listener has been brought to (null before `follow`). */
  readonly position: FeedPosition | null;
  /** No more changes to the listener: what it reflects stays at `position`. */
  stop(): Promise<void>;
  /** A snapshot of the index at `position` is saved: what the gallery kept to be followed from before it may go. */
  forgetThrough(position: FeedPosition): void;
}
