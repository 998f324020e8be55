// Events of a `runtime-binding-<session key>` stream: which runtime session a conversation is bound to, and why.
import { scopedStreamName } from '../streamScope.js';

/** new: nothing was bound; drift: provider/model changed; new_command: `/new` or newSession; task: `/new <task>`. */
export type BindReason = 'new' | 'drift' | 'new_command' | 'task';
/** conversation_reset / conversation_suspended: the conversation's reset or suspend ended the binding (unless keepRuntime). */
export type DetachReason = 'detach' | 'new_command' | 'conversation_reset' | 'conversation_suspended';

export type RuntimeBindingEvent =
  | {
      type: 'RuntimeBound';
      data: {
        runtimeSessionId: string;
        provider: string;
        model: string;
        reason: BindReason;
        previousRuntimeSessionId: string | null;
        /** The status note a drift leaves in the conversation ("model changed from a to b"). */
        note: string | null;
        at: string;
      };
    }
  | { type: 'RuntimeDetached'; data: { runtimeSessionId: string; reason: DetachReason; at: string } };

export type RuntimeBindingEventType = RuntimeBindingEvent['type'];

/** `tenant` namespaces the stream (see streamScope.ts); without one it is the default tenant's. */
export function runtimeBindingStreamName(sessionKey: string, tenant?: string): string {
  return scopedStreamName(`runtime-binding-${sessionKey}`, tenant);
}
