//! The forms a secret is looked for in besides its plain bytes, the ones a person or a script
//! turns back into the key without a decoder for escapes: any ASCII letter case, reversed, hex,
//! and base64 inside a longer encoded text; and the invisible characters a text can hide
//! between its characters.

use std::ops::Range;

/// The shortest secret whose transformed forms are looked for, bytes: a shorter one, in any
/// letter case or as a few base64 characters, would match ordinary text.
pub const MIN_TRANSFORMED: usize = 8;

/// Characters that show as nothing (zero-width space, non-joiner and joiner, word joiner,
/// invisible operators, byte-order mark, soft hyphen, bidi marks, combining grapheme joiner): a
/// text with them between the secret's characters reads as the secret.
pub(super) fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{034F}'
            | '\u{180E}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{2069}'
            | '\u{FEFF}'
    )
}

/// One form of the secret and how it is matched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Form {
    /// ASCII-lower-cased when `any_case`.
    needle: String,
    any_case: bool,
    /// Base64 characters: the whole encoded run around a match is replaced, since its edge
    /// characters still carry a few of the secret's bits.
    base64: bool,
}

impl Form {
    fn exact(needle: String) -> Self {
        Self {
            needle,
            any_case: false,
            base64: false,
        }
    }

    fn any_case(needle: &str) -> Self {
        Self {
            needle: needle.to_ascii_lowercase(),
            any_case: true,
            base64: false,
        }
    }

    /// The byte ranges of `text` holding this form; `lower` is `text` ASCII-lower-cased (the
    /// same offsets).
    pub fn find<'a>(
        &'a self,
        text: &'a str,
        lower: &'a str,
    ) -> impl Iterator<Item = Range<usize>> + 'a {
        let haystack = if self.any_case { lower } else { text };
        haystack.match_indices(&self.needle).map(move |(i, _)| {
            let found = i..i + self.needle.len();
            if self.base64 {
                base64_run(text, found)
            } else {
                found
            }
        })
    }
}

/// Every form `secret` is looked for in. A short secret only as it is.
pub(super) fn forms(secret: &str) -> Vec<Form> {
    if secret.len() < MIN_TRANSFORMED {
        return vec![Form::exact(secret.to_owned())];
    }
    let reversed: String = secret.chars().rev().collect();
    let hex: String = secret.bytes().map(|b| format!("{b:02x}")).collect();
    let mut out = vec![
        Form::any_case(secret),
        Form::any_case(&reversed),
        Form::any_case(&hex),
    ];
    for offset in 0..3 {
        let standard = base64_signature(secret.as_bytes(), offset);
        let url_safe = standard.replace('+', "-").replace('/', "_");
        for needle in [standard, url_safe] {
            if !needle.is_empty() && !out.iter().any(|f| f.needle == needle) {
                out.push(Form {
                    needle,
                    any_case: false,
                    base64: true,
                });
            }
        }
    }
    out
}

const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Base64 without padding.
fn base64(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for group in bytes.chunks(3) {
        let b = [
            group[0],
            *group.get(1).unwrap_or(&0),
            *group.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for k in 0..=group.len() {
            out.push(char::from(BASE64[((n >> (18 - 6 * k)) & 63) as usize]));
        }
    }
    out
}

/// The base64 characters that depend on `bytes` alone when they start `offset` bytes into a
/// 3-byte group of a longer text: the first characters also carry the bytes before, the last
/// one the bytes after.
fn base64_signature(bytes: &[u8], offset: usize) -> String {
    let mut padded = vec![0u8; offset];
    padded.extend_from_slice(bytes);
    let encoded = base64(&padded);
    let skip = [0, 2, 3][offset % 3];
    let cut = usize::from(!padded.len().is_multiple_of(3));
    encoded
        .get(skip..encoded.len().saturating_sub(cut))
        .unwrap_or_default()
        .to_owned()
}

/// `found` widened to the run of base64 characters (either alphabet, `=` padding after it)
/// around it.
fn base64_run(text: &str, found: Range<usize>) -> Range<usize> {
    let b = text.as_bytes();
    let body = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'-' | b'_');
    let mut start = found.start;
    while start > 0 && body(b[start - 1]) {
        start -= 1;
    }
    let mut end = found.end;
    while end < b.len() && body(b[end]) {
        end += 1;
    }
    while end < b.len() && b[end] == b'=' {
        end += 1;
    }
    start..end
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_is_the_standard_encoding() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg");
        assert_eq!(base64(b"fo"), "Zm8");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
        assert_eq!(base64(&[0xfb, 0xff]), "+/8");
    }

    #[test]
    fn a_signature_is_found_in_any_text_that_encodes_the_secret() {
        let secret = b"sk-secret-0123456789";
        for prefix in ["", "a", "ab", "abc", "Bearer ", "key="] {
            for suffix in ["", "!", "!?", "\n"] {
                let mut text = prefix.as_bytes().to_vec();
                text.extend_from_slice(secret);
                text.extend_from_slice(suffix.as_bytes());
                let encoded = base64(&text);
                let offset = prefix.len() % 3;
                let sig = base64_signature(secret, offset);
                assert!(sig.len() >= 24, "{sig}");
                assert!(
                    encoded.contains(&sig),
                    "{prefix:?} {suffix:?}: {encoded} ∌ {sig}"
                );
            }
        }
    }

    #[test]
    fn short_secrets_are_only_looked_for_as_they_are() {
        assert_eq!(forms("abc"), vec![Form::exact("abc".into())]);
        // Any case, reversed and hex, then base64 at three offsets (one alphabet when they agree).
        assert!((6..=9).contains(&forms("sk-12345678").len()));
    }

    #[test]
    fn invisible_characters_are_the_zero_width_ones_and_their_kin() {
        for c in [
            '\u{200B}', '\u{200C}', '\u{200D}', '\u{2060}', '\u{FEFF}', '\u{00AD}',
        ] {
            assert!(is_invisible(c), "{:04x}", c as u32);
        }
        for c in [' ', 'a', '-', '\u{00A0}', 'é'] {
            assert!(!is_invisible(c), "{c}");
        }
    }
}
