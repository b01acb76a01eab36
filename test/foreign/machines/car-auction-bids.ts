/**
 * Origin: statelyai/xstate, examples/workflow-car-auction-bids/main.ts, commit b1811bf77bc2d1a74367328cec7907aa185b70df (xstate 5).
 * Licence: MIT (Copyright (c) 2015 David Khourshid).
 * Adapted: imports only, and the demo driver left out.
 */
import { assign, createMachine } from 'xstate';

interface Bid {
  carid: string;
  amount: number;
  bidder: {
    id: string;
    firstName: string;
    lastName: string;
  };
}

// https://github.com/serverlessworkflow/specification/tree/main/examples#handle-car-auction-bids-example
export const workflow = createMachine(
  {
    id: 'handleCarAuctionBid',
    description: 'Store a single bid whole the car auction is active',
    initial: 'StoreCarAuctionBid',
    types: {} as {
      context: {
        bids: Bid[];
      };
      events: {
        type: 'CarBidEvent';
        bid: Bid;
      };
    },
    context: {
      bids: [],
    },
    states: {
      StoreCarAuctionBid: {
        on: {
          CarBidEvent: {
            actions: assign({
              bids: ({ context, event }) => [...context.bids, event.bid],
            }),
          },
        },
        after: {
          BiddingDelay: 'BiddingEnded',
        },
      },
      BiddingEnded: {
        type: 'final',
        output: ({ context }) => ({
          // highest bid
          winningBid: context.bids.reduce((prev, current) => (prev.amount > current.amount ? prev : current)),
        }),
      },
    },
  },
  {
    delays: {
      BiddingDelay: 3000,
    },
  },
);
