// What an interrupting follow-up does when another one waits in the queue (QUEUE_FOLLOW_UPS).

/**
 * `fifo` (Hermes' gateway/run.py): it waits as its own turn, joining the waiting one only where media are involved (a
 * photo burst, an album, a caption after a photo). `merge`: it joins the waiting one, its text after a newline
 * (Hermes' older `merge_text`). `replace`: it takes the waiting one's place, media merged (Hermes' older single
 * pending slot, overwritten by each follow-up).
 */
export const queueFollowUpModes = ['fifo', 'merge', 'replace'] as const;
export type QueueFollowUps = (typeof queueFollowUpModes)[number];
