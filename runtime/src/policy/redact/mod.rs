//! Redaction of a secret (the API key) from what a server sends back, in every form that
//! decodes to it — not only the plain bytes. A hostile or careless server can echo the key
//! escaped: `\u0073k-…` in a JSON string is the key once the body is parsed, and the turn inside
//! the completion is JSON again, so the key can hide under two or more layers of escaping.
//!
//! The text is decoded layer by layer, each decoded character remembering the span of the raw
//! text it came from; wherever a layer holds the secret, that raw span is replaced. A layer
//! decodes what the record's readers, our parsers or a person's tools could: JSON and
//! JavaScript escapes (`\uXXXX` with surrogate pairs, `\u{X}`, `\xXX`, `\UXXXXXXXX`, `\"`,
//! `\\`, `\/`, `\n` …), percent-encoding (`%73`, UTF-8 sequences), and HTML character
//! references (`&#115;`, `&#x73;`, `&amp;` …). Layers stop when one decodes nothing (or after
//! [`MAX_LAYERS`]).
//!
//! In every layer the secret is also looked for as a person would recover it (`forms.rs`): with
//! invisible characters (zero-width space and joiners, word joiner, BOM, soft hyphen, bidi
//! marks) left out, in any letter case, reversed, as hex (either case), and as base64 (standard
//! and URL-safe, at each of the three byte offsets it can start at inside a longer encoded
//! text; the whole encoded run is replaced, so no edge character keeps a few bits of it). These
//! transformed forms are looked for only in secrets of [`MIN_TRANSFORMED`] bytes or more: a
//! shorter one would match ordinary words. Out of scope: a key split across fields, or
//! encrypted, compressed or hashed.

mod forms;

use forms::{forms, is_invisible};
use std::borrow::Cow;
use std::ops::Range;

pub use forms::MIN_TRANSFORMED;

/// What replaces the secret.
pub const REDACTED: &str = "<redacted>";
/// Layers of encoding looked through (each one must decode something to go deeper).
pub const MAX_LAYERS: usize = 8;

/// `text` with every span that decodes to `secret` replaced by [`REDACTED`].
pub fn redact<'a>(text: &'a str, secret: &str) -> Cow<'a, str> {
    if secret.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut out = Cow::Borrowed(text);
    // Replacing can, in theory, join two halves into a new match: look again until none.
    for _ in 0..MAX_LAYERS {
        let spans = spans_of(&out, secret);
        if spans.is_empty() {
            break;
        }
        let mut next = String::with_capacity(out.len());
        let mut at = 0;
        for s in spans {
            next.push_str(&out[at..s.start]);
            next.push_str(REDACTED);
            at = s.end;
        }
        next.push_str(&out[at..]);
        out = Cow::Owned(next);
    }
    out
}

/// The raw spans (merged, in order) that decode to `secret`, in any of its forms, in some
/// layer.
fn spans_of(raw: &str, secret: &str) -> Vec<Range<usize>> {
    let forms = forms(secret);
    let mut spans = Vec::new();
    let mut layer = Layer::raw(raw);
    for depth in 0..=MAX_LAYERS {
        let visible = layer.visible();
        let view = visible.as_ref().unwrap_or(&layer);
        let lower = view.text.to_ascii_lowercase();
        for form in &forms {
            for found in form.find(&view.text, &lower) {
                spans.push(view.origin(found.start)..view.origin(found.end));
            }
        }
        if depth == MAX_LAYERS {
            break;
        }
        match layer.decode() {
            Some(next) => layer = next,
            None => break,
        }
    }
    spans.sort_by_key(|s| s.start);
    let mut merged: Vec<Range<usize>> = Vec::with_capacity(spans.len());
    for s in spans {
        match merged.last_mut() {
            Some(last) if s.start <= last.end => last.end = last.end.max(s.end),
            _ => merged.push(s),
        }
    }
    merged
}

/// One layer of decoded text: `origin[i]` is the raw offset where the character holding byte
/// `i` began, and `origin[text.len()]` the raw text's end (so a decoded range maps to the raw
/// range `origin[start]..origin[end]`). The raw layer maps to itself (`origin` is `None`).
struct Layer {
    text: String,
    origin: Option<Vec<usize>>,
}

impl Layer {
    fn raw(text: &str) -> Self {
        Self {
            text: text.to_owned(),
            origin: None,
        }
    }

    fn origin(&self, i: usize) -> usize {
        self.origin.as_ref().map_or(i, |o| o[i])
    }

    /// This layer without its invisible characters, or `None` when it has none.
    fn visible(&self) -> Option<Self> {
        if !self.text.chars().any(is_invisible) {
            return None;
        }
        let mut text = String::with_capacity(self.text.len());
        let mut origin = Vec::with_capacity(self.text.len() + 1);
        for (i, c) in self.text.char_indices().filter(|(_, c)| !is_invisible(*c)) {
            origin.extend(std::iter::repeat_n(self.origin(i), c.len_utf8()));
            text.push(c);
        }
        origin.push(self.origin(self.text.len()));
        Some(Self {
            text,
            origin: Some(origin),
        })
    }

    /// The next layer down, or `None` when nothing here is encoded.
    fn decode(&self) -> Option<Self> {
        if !self.text.contains(['\\', '%', '&']) {
            return None;
        }
        let mut text = String::with_capacity(self.text.len());
        let mut origin = Vec::with_capacity(self.text.len() + 1);
        let mut changed = false;
        let mut i = 0;
        while let Some(rest) = self.text.get(i..).filter(|r| !r.is_empty()) {
            // Escapes are ASCII, so `used` always ends on a character boundary.
            let (c, used) = match decode_at(rest.as_bytes()) {
                Some(decoded) => {
                    changed = true;
                    decoded
                }
                None => {
                    let c = rest.chars().next()?;
                    (c, c.len_utf8())
                }
            };
            origin.extend(std::iter::repeat_n(self.origin(i), c.len_utf8()));
            text.push(c);
            i += used;
        }
        origin.push(self.origin(self.text.len()));
        changed.then_some(Self {
            text,
            origin: Some(origin),
        })
    }
}

/// The character encoded at the start of `s`, and how many bytes encode it.
fn decode_at(s: &[u8]) -> Option<(char, usize)> {
    match s.first()? {
        b'\\' => backslash(s),
        b'%' => percent(s),
        b'&' => entity(s),
        _ => None,
    }
}

/// The value of `n` hex digits at `from`.
fn hex(s: &[u8], from: usize, n: usize) -> Option<u32> {
    let digits = s.get(from..from.checked_add(n)?)?;
    if digits.is_empty() {
        return None;
    }
    digits
        .iter()
        .try_fold(0u32, |v, &c| Some(v * 16 + char::from(c).to_digit(16)?))
}

fn backslash(s: &[u8]) -> Option<(char, usize)> {
    let simple = |c| Some((c, 2));
    match s.get(1)? {
        b'u' if s.get(2) == Some(&b'{') => {
            let close = (3..s.len().min(10)).find(|&j| s[j] == b'}')?;
            let v = hex(s, 3, close - 3)?;
            Some((char::from_u32(v)?, close + 1))
        }
        b'u' => {
            let v = hex(s, 2, 4)?;
            if (0xD800..0xDC00).contains(&v) && s.get(6..8) == Some(&b"\\u"[..]) {
                let low = hex(s, 8, 4)?.checked_sub(0xDC00).filter(|l| *l < 0x400)?;
                let c = char::from_u32(0x10000 + ((v - 0xD800) << 10) + low)?;
                return Some((c, 12));
            }
            Some((char::from_u32(v)?, 6))
        }
        b'U' => Some((char::from_u32(hex(s, 2, 8)?)?, 10)),
        b'x' => Some((char::from_u32(hex(s, 2, 2)?)?, 4)),
        b'n' => simple('\n'),
        b'r' => simple('\r'),
        b't' => simple('\t'),
        b'b' => simple('\u{8}'),
        b'f' => simple('\u{c}'),
        c @ (b'"' | b'\'' | b'\\' | b'/') => simple(char::from(*c)),
        _ => None,
    }
}

fn percent(s: &[u8]) -> Option<(char, usize)> {
    let len = match hex(s, 1, 2)? {
        0x00..=0x7F => 1,
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF7 => 4,
        _ => return None,
    };
    let mut bytes = Vec::with_capacity(len);
    for k in 0..len {
        if s.get(3 * k)? != &b'%' {
            return None;
        }
        bytes.push(u8::try_from(hex(s, 3 * k + 1, 2)?).ok()?);
    }
    let c = std::str::from_utf8(&bytes).ok()?.chars().next()?;
    Some((c, 3 * len))
}

fn entity(s: &[u8]) -> Option<(char, usize)> {
    let end = (1..s.len().min(12)).find(|&j| s[j] == b';')?;
    let body = std::str::from_utf8(&s[1..end]).ok()?;
    let c = match body {
        "amp" => '&',
        "lt" => '<',
        "gt" => '>',
        "quot" => '"',
        "apos" => '\'',
        b => {
            let num = b.strip_prefix('#')?;
            let v = match num.strip_prefix(['x', 'X']) {
                Some(h) => u32::from_str_radix(h, 16).ok()?,
                None => num.parse().ok()?,
            };
            char::from_u32(v)?
        }
    };
    Some((c, end + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "sk-alpha3-SECRET-7f3a";

    /// Every character of `s` as `\uXXXX`.
    fn u_escaped(s: &str) -> String {
        s.chars().map(|c| format!("\\u{:04x}", c as u32)).collect()
    }

    #[test]
    fn the_plain_key_is_replaced_and_other_text_kept() {
        assert_eq!(redact("no secret here", KEY), "no secret here");
        assert!(matches!(redact("no secret here", KEY), Cow::Borrowed(_)));
        assert_eq!(
            redact(&format!("key {KEY} and {KEY}!"), KEY),
            "key <redacted> and <redacted>!"
        );
        assert_eq!(redact("anything", ""), "anything");
    }

    #[test]
    fn escaped_forms_that_decode_to_the_key_are_replaced() {
        let forms = [
            u_escaped(KEY),
            format!("\\u0073{}", &KEY[1..]),
            format!("s\\u006b{}", &KEY[2..]),
            // Escaped twice: a JSON string inside a JSON string (the body, then the turn).
            u_escaped(KEY).replace('\\', "\\\\"),
            format!("\\u005cu0073{}", &KEY[1..]),
            KEY.bytes().map(|b| format!("%{b:02X}")).collect(),
            format!("%73{}", &KEY[1..]),
            KEY.chars().map(|c| format!("&#{};", c as u32)).collect(),
            format!("&#x73;{}", &KEY[1..]),
            format!("\\x73\\u{{6b}}{}", &KEY[2..]),
            format!("sk\\u002D{}", &KEY[3..]),
        ];
        for form in forms {
            let text = format!("{{\"intent\": \"{form}\"}}");
            assert_eq!(redact(&text, KEY), "{\"intent\": \"<redacted>\"}", "{form}");
        }
        // Decoded by a JSON parser, what is left holds no key.
        let body =
            serde_json::json!({"content": format!("{{\"intent\": \"{}\"}}", u_escaped(KEY))})
                .to_string();
        let clean = redact(&body, KEY);
        let content: serde_json::Value = serde_json::from_str(&clean).unwrap();
        let turn: serde_json::Value =
            serde_json::from_str(content["content"].as_str().unwrap()).unwrap();
        assert_eq!(turn["intent"], "<redacted>");
    }

    #[test]
    fn a_non_ascii_secret_and_surrogate_pairs_are_handled() {
        let key = "clé-🔑-42";
        let escaped = "cl\\u00e9-\\ud83d\\udd11-42";
        assert_eq!(redact(&format!("a {escaped} b"), key), "a <redacted> b");
        assert_eq!(
            redact("a cl%C3%A9-%F0%9F%94%91-42 b", key),
            "a <redacted> b"
        );
    }

    /// Standard base64 of `bytes`, with padding.
    fn b64(bytes: &[u8]) -> String {
        const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut out = String::new();
        for g in bytes.chunks(3) {
            let n = (u32::from(g[0]) << 16)
                | (u32::from(*g.get(1).unwrap_or(&0)) << 8)
                | u32::from(*g.get(2).unwrap_or(&0));
            for k in 0..4 {
                out.push(if k <= g.len() {
                    char::from(A[((n >> (18 - 6 * k)) & 63) as usize])
                } else {
                    '='
                });
            }
        }
        out
    }

    #[test]
    fn transformed_forms_of_the_key_are_replaced() {
        let zw = |sep: &str| KEY.chars().map(String::from).collect::<Vec<_>>().join(sep);
        let hex: String = KEY.bytes().map(|b| format!("{b:02x}")).collect();
        let mut forms = vec![
            KEY.to_uppercase(),
            KEY.to_lowercase(),
            KEY.chars().rev().collect(),
            KEY.chars().rev().collect::<String>().to_uppercase(),
            hex.clone(),
            hex.to_uppercase(),
            zw("\u{200b}"),
            zw("\u{200c}"),
            zw("\u{200d}"),
            zw("\u{2060}"),
            zw("\u{feff}"),
            // Zero-width characters escaped in a JSON string.
            zw("\\u200b"),
            zw("\u{200b}").to_uppercase(),
        ];
        // Base64 of the key inside longer texts, at every offset, in both alphabets.
        for prefix in ["", "k", "ke", "Bearer "] {
            let encoded = b64(format!("{prefix}{KEY}!").as_bytes());
            forms.push(encoded.replace('+', "-").replace('/', "_").replace('=', ""));
            forms.push(encoded);
        }
        for form in forms {
            let text = format!("{{\"intent\": \"{form}\"}}");
            assert_eq!(redact(&text, KEY), "{\"intent\": \"<redacted>\"}", "{form}");
        }
    }

    #[test]
    fn ordinary_text_is_kept_whatever_the_key() {
        let text = "{\"intent\": \"fly to wp 2\", \"id\": \"c2VjcmV0LXNhdWNl\", \"hash\": \
                    \"deadbeef00ff\", \"note\": \"ALPHA3 secret sk-\u{200b}\"}";
        assert_eq!(redact(text, KEY), text);
        // A short secret is only looked for as it is: its other forms would be ordinary words.
        assert_eq!(redact("Abc cba 616263 YWJj", "abc"), "Abc cba 616263 YWJj");
    }

    #[test]
    fn broken_escapes_are_text() {
        for text in [
            "\\u12",
            "\\u{110000}",
            "%G1",
            "%",
            "&#;",
            "&#xFFFFFFFF;",
            "\\",
            "\\ud800",
        ] {
            assert_eq!(redact(text, KEY), text);
        }
    }
}
