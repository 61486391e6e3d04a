/**
 * Ids of responses and their items. An item id carries its response's id (`msg_<32 hex><4 hex>`),
 * so an `item_reference` finds the stored response without a second index, in memory or on disk.
 */
import { randomBytes } from 'node:crypto';

export type ItemPrefix = 'msg' | 'fc' | 'fco' | 'rs' | 'ci' | 'ws' | 'ig';

const ITEM_ID = /^[a-z]{2,3}_([0-9a-f]{32})[0-9a-f]{4}$/;
const RESPONSE_ID = /^resp_[0-9a-f]{32}$/;

export function newResponseId(): string {
  return `resp_${randomBytes(16).toString('hex')}`;
}

export function isResponseId(id: string): boolean {
  return RESPONSE_ID.test(id);
}

/** The id of item number `index` (0-based, input items first, then output items) of a response. */
export function itemId(responseId: string, prefix: ItemPrefix, index: number): string {
  return `${prefix}_${responseId.slice('resp_'.length)}${(index & 0xffff).toString(16).padStart(4, '0')}`;
}

/** The response an item id belongs to, or undefined when it is not one of ours. */
export function responseIdOfItem(id: string): string | undefined {
  const m = ITEM_ID.exec(id);
  return m ? `resp_${m[1]}` : undefined;
}
