/**
 * Origin: statelyai/xstate, examples/friends-list-react/src/friendsMachine.ts, commit b1811bf77bc2d1a74367328cec7907aa185b70df (xstate 5).
 * Licence: MIT (Copyright (c) 2015 David Khourshid).
 * Adapted: imports only (friendMachine from ./friend.ts), and a `!` where this project's `noUncheckedIndexedAccess` asks for one. It spawns each friend from inline logic (`spawn(friendMachine, ...)` in an assign), which no host can revive from a stored snapshot: statewright refuses it (the corpus test says how).
 */
import { type ActorRefFrom, createMachine, assign, stopChild } from 'xstate';
import { friendMachine } from './friend.js';

const makeId = () => Math.random().toString(36).substring(7);

export const friendsMachine = createMachine({
  types: {} as {
    context: {
      newFriendName: string;
      friends: ActorRefFrom<typeof friendMachine>[];
    };
    events:
      | {
          type: 'FRIENDS.ADD';
          name: string;
        }
      | {
          type: 'NEW_FRIEND.CHANGE';
          name: string;
        }
      | {
          type: 'FRIEND.REMOVE';
          index: number;
        };
  },
  id: 'friends',
  context: {
    newFriendName: '',
    friends: [],
  },
  on: {
    'NEW_FRIEND.CHANGE': {
      actions: assign({
        newFriendName: ({ event }) => event.name,
      }),
    },
    'FRIENDS.ADD': {
      guard: ({ event }) => event.name.trim().length > 0,
      actions: assign({
        friends: ({ context, spawn }) =>
          context.friends.concat(
            spawn(friendMachine, {
              id: `friend-${makeId()}`,
              input: {
                name: context.newFriendName,
              },
            }),
          ),
        newFriendName: '',
      }),
    },
    'FRIEND.REMOVE': {
      actions: [
        // Stop the friend actor to unsubscribe
        stopChild(({ context, event }) => context.friends[event.index]!),
        // Remove the friend from the list by index
        assign({
          friends: ({ context, event }) => context.friends.filter((_, index) => index !== event.index),
        }),
      ],
    },
  },
});
