// What a use case is, for the transport that serves it (http/operation-route.ts): its context and its answer.
import type { OperationId, ParsedRequestOf, ResponseOf } from '../../common/api/operations.js';
import type { DecodedTemplate } from '../../common/uitemplate/index.js';
import type { Logger } from '../log/index.js';
import type { TokenRecord } from '../storage/index.js';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

export interface OperationContext<K extends OperationId> {
  txId: string;
  request: ParsedRequestOf<K>;
  /** The request's UITemplates, decoded and verified, by field name. */
  templates: Record<string, DecodedTemplate>;
  token: TokenRecord;
  log: Logger;
}

/** What a handler answers: the route adds the transaction id and `exception`, which follows from the status. */
export type OperationResult<K extends OperationId> = DistributiveOmit<ResponseOf<K>, 'txId' | 'exception'>;

export type OperationHandler<K extends OperationId> = (
  ctx: OperationContext<K>,
) => Promise<OperationResult<K>> | OperationResult<K>;

export type OperationHandlers = { [K in OperationId]?: OperationHandler<K> };
