import { defineTool, type Tool } from '@rxscope/core';
import { z } from 'zod';

/** A refund that went through (what the service's diagnostics report). */
export interface Refund {
  readonly orderId: string;
  readonly amount: number;
  readonly at: number;
}

/**
 * The tools of the service's agents. `refund_order` changes the world, so it always asks a
 * person first (`needsApproval: true`): the reply suspends with `REQUIRE_USER_CONFIRM`.
 */
export function createTools(refunds: Refund[]): Tool[] {
  const refundOrder = defineTool({
    name: 'refund_order',
    description: 'Refunds an order to the customer. Needs the order id and the amount in EUR.',
    input: z.object({ orderId: z.string().min(1), amount: z.number().positive() }),
    needsApproval: true,
    execute: ({ orderId, amount }) => {
      refunds.push({ orderId, amount, at: Date.now() });
      return `Refunded ${amount} EUR on order ${orderId}.`;
    },
  });
  const orderStatus = defineTool({
    name: 'order_status',
    description: 'Looks up the status of an order.',
    input: z.object({ orderId: z.string().min(1) }),
    readOnly: true,
    execute: ({ orderId }) => `Order ${orderId}: delivered, paid 80 EUR.`,
  });
  return [refundOrder, orderStatus];
}
