/** How each value may be written in a text besides as it is: what {@link redactValues} also replaces. */
interface ValueForms {
  /** The value as it is, URL-encoded (`encodeURIComponent`), and in base64 (padded, unpadded, URL-safe): each distinct. */
  readonly exact: readonly string[];
  /** The value in lower case, for a case-insensitive search; undefined when it has no cased letter. */
  readonly lower: string | undefined;
  /** The value matched in any case (its characters escaped); undefined with {@link lower}. */
  readonly anyCase: RegExp | undefined;
}

/** The forms of values seen lately (a host has a few secrets; cleared past {@link FORMS_KEPT}). */
const formsSeen = new Map<string, ValueForms>();
const FORMS_KEPT = 256;

function formsOf(value: string): ValueForms {
  let forms = formsSeen.get(value);
  if (forms) return forms;
  const bytes = Buffer.from(value, "utf8");
  const base64 = bytes.toString("base64");
  let encoded = value;
  try {
    encoded = encodeURIComponent(value);
  } catch {
    // A lone surrogate has no URL encoding: nothing can hold it in that form.
  }
  const exact = [...new Set([value, encoded, base64, base64.replace(/=+$/, ""), bytes.toString("base64url")])].filter(
    (form) => form !== "",
  );
  const lower = value.toLowerCase();
  const cased = lower !== value.toUpperCase();
  forms = {
    // Longest first, so a form that contains another is replaced whole.
    exact: exact.sort((a, b) => b.length - a.length),
    lower: cased ? lower : undefined,
    anyCase: cased ? new RegExp(value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "giu") : undefined,
  };
  if (formsSeen.size >= FORMS_KEPT) formsSeen.clear();
  formsSeen.set(value, forms);
  return forms;
}

/** What the SDK writes in place of a credential it redacts, everywhere it redacts one. */
export const REDACTED = "[redacted]";

/**
 * `text` with every occurrence of each of `values` replaced by `marker`: the values of
 * credentials the host knows (its secret environment variables) never leave it in a message or
 * stored text. Each value is found as it is, in any letter case, URL-encoded
 * (`encodeURIComponent`) and base64-encoded (standard, unpadded or URL-safe, when the text holds the
 * value's encoding on its own). Empty values are skipped (they would match everywhere).
 * @param marker what replaces each occurrence; default {@link REDACTED}.
 */
export function redactValues(text: string, values: readonly string[], marker = REDACTED): string {
  let out = text;
  let lower: string | undefined;
  for (const value of values) {
    if (value === "") continue;
    const forms = formsOf(value);
    for (const form of forms.exact) {
      if (out.includes(form)) {
        out = out.split(form).join(marker);
        lower = undefined;
      }
    }
    if (forms.lower === undefined || forms.anyCase === undefined) continue;
    lower ??= out.toLowerCase();
    if (lower.includes(forms.lower)) {
      out = out.replace(forms.anyCase, () => marker);
      lower = undefined;
    }
  }
  return out;
}
