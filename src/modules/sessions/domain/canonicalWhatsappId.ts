// WhatsApp bridges name one number several ways (+E.164, JID, device JID, LID); sessions must not fragment over that.

/**
 * `+15551234567`, `15551234567@s.whatsapp.net` and `15551234567:12@s.whatsapp.net` all become `15551234567`.
 * Returns undefined when nothing is left, so the caller treats the id as absent.
 */
export function canonicalWhatsappId(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  const withoutPlus = raw.startsWith('+') ? raw.slice(1) : raw;
  const withoutDevice = withoutPlus.split(':', 1)[0] ?? '';
  const user = withoutDevice.split('@', 1)[0] ?? '';
  return user === '' ? undefined : user;
}

export type WhatsappAliases = Readonly<Record<string, string>>;

/**
 * Canonicalises, then maps a linked-device id to the number it stands for.
 * Alias keys and values are canonicalised too, so a map written with JIDs or `+` still matches.
 */
export function resolveWhatsappId(raw: string | undefined, aliases: WhatsappAliases = {}): string | undefined {
  const id = canonicalWhatsappId(raw);
  if (id === undefined) return undefined;
  for (const [alias, target] of Object.entries(aliases)) {
    if (canonicalWhatsappId(alias) !== id) continue;
    return canonicalWhatsappId(target) ?? id;
  }
  return id;
}
