//! The markup of a lesson step's text: `**strong**`, `*emphasis*`, `` `code` `` and `$math$`.
//! Math spans read ASCII as the symbols it stands for (`<=` as ≤, `^-6` as ⁻⁶, `eps` as ε), so a
//! lesson file can say `$d^2 <= r^2 + eps$` and the class reads `d² ≤ r² + ε`. A backslash
//! keeps the next character as it is (`\*`, `\$`). Inside code and math only the closing marker
//! counts, so `$a * b$` is a product.

/// How a piece of step text is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// Running text.
    Plain,
    /// `**…**`: what the class must not miss.
    Strong,
    /// `*…*`: a term, or a stress.
    Emphasis,
    /// `` `…` ``: a setting's or panel's name, as typed.
    Code,
    /// `$…$`: a formula, with its ASCII spelled as symbols.
    Math,
}

/// A run of text in one style.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Span {
    /// The text, with math already turned into symbols.
    pub text: String,
    /// How it is drawn.
    pub style: Style,
}

/// A marker of step text that is not closed where it must be; offsets count characters from 0.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MarkupError {
    /// A marker opened inside another one that is still open.
    #[error("{} opened at character {at} inside {} opened at character {outer_at}: close the first one before", marker_name(*.marker), marker_name(*.outer))]
    Crossed {
        /// The inner marker.
        marker: Style,
        /// Where it opens.
        at: usize,
        /// The marker still open.
        outer: Style,
        /// Where that one opened.
        outer_at: usize,
    },
    /// A marker the text never closes.
    #[error("{} opened at character {at} is never closed", marker_name(*.marker))]
    Unclosed {
        /// The marker.
        marker: Style,
        /// Where it opened.
        at: usize,
    },
}

/// The spans of `text`; an unclosed marker is an error naming it and where it opened
/// (character offset from 0).
pub fn spans(text: &str) -> Result<Vec<Span>, MarkupError> {
    let chars: Vec<char> = text.chars().collect();
    let mut out: Vec<Span> = Vec::new();
    let mut style = Style::Plain;
    let mut opened_at = 0;
    let mut buf = String::new();
    let flush = |buf: &mut String, style: Style, out: &mut Vec<Span>| {
        if !buf.is_empty() {
            let text = if style == Style::Math { math(buf) } else { std::mem::take(buf) };
            buf.clear();
            out.push(Span { text, style });
        }
    };
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        // Inside code and math, only the closing marker is markup (`*` is a product in math).
        if (style == Style::Code && c != '`') || (style == Style::Math && c != '$' && c != '\\') {
            buf.push(c);
            i += 1;
            continue;
        }
        let (marker, len) = match (c, next) {
            ('\\', Some(n)) => {
                buf.push(n);
                i += 2;
                continue;
            }
            ('*', Some('*')) => (Style::Strong, 2),
            ('*', _) => (Style::Emphasis, 1),
            ('`', _) => (Style::Code, 1),
            ('$', _) => (Style::Math, 1),
            _ => {
                buf.push(c);
                i += 1;
                continue;
            }
        };
        if style == marker {
            flush(&mut buf, style, &mut out);
            style = Style::Plain;
        } else if style == Style::Plain {
            flush(&mut buf, style, &mut out);
            style = marker;
            opened_at = i;
        } else {
            return Err(MarkupError::Crossed { marker, at: i, outer: style, outer_at: opened_at });
        }
        i += len;
    }
    if style != Style::Plain {
        return Err(MarkupError::Unclosed { marker: style, at: opened_at });
    }
    flush(&mut buf, style, &mut out);
    Ok(out)
}

fn marker_name(s: Style) -> &'static str {
    match s {
        Style::Plain => "text",
        Style::Strong => "`**` (strong)",
        Style::Emphasis => "`*` (emphasis)",
        Style::Code => "a backtick (code)",
        Style::Math => "`$` (math)",
    }
}

/// ASCII spellings in math and the symbols they stand for, longest first where one starts another.
const SYMBOLS: [(&str, &str); 9] = [
    ("<=", "≤"),
    (">=", "≥"),
    ("!=", "≠"),
    ("->", "→"),
    ("+-", "±"),
    ("~=", "≈"),
    ("sqrt", "√"),
    ("*", "·"),
    ("inf", "∞"),
];

/// Greek letters by name, and `in` as ∈, replaced as whole words.
const GREEK: [(&str, &str); 11] = [
    ("in", "∈"),
    ("epsilon", "ε"),
    ("eps", "ε"),
    ("delta", "δ"),
    ("Delta", "Δ"),
    ("theta", "θ"),
    ("omega", "ω"),
    ("alpha", "α"),
    ("mu", "μ"),
    ("pi", "π"),
    ("tau", "τ"),
];

/// A formula's ASCII spelled as symbols: `d^2 <= r^2 + eps` → `d² ≤ r² + ε`.
pub fn math(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    'outer: while let Some(c) = rest.chars().next() {
        if c.is_alphabetic() {
            let word_len = rest.find(|c: char| !c.is_alphanumeric() && c != '_').unwrap_or(rest.len());
            let word = &rest[..word_len];
            let symbol = GREEK.iter().find(|(n, _)| *n == word).map(|(_, g)| *g);
            out.push_str(symbol.unwrap_or(word));
            rest = &rest[word_len..];
            continue;
        }
        if let Some(r) = rest.strip_prefix('^') {
            // An exponent: `^2`, `^-6` as superscripts.
            let len = r.strip_prefix('-').map_or(0, |_| 1);
            let digits = r[len..].find(|c: char| !c.is_ascii_digit()).unwrap_or(r.len() - len);
            if digits > 0 {
                out.extend(r[..len + digits].chars().map(superscript));
                rest = &r[len + digits..];
                continue;
            }
        }
        for (ascii, symbol) in SYMBOLS {
            if let Some(r) = rest.strip_prefix(ascii) {
                out.push_str(symbol);
                rest = r;
                continue 'outer;
            }
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

fn superscript(c: char) -> char {
    match c {
        '-' => '⁻',
        '1' => '¹',
        '2' => '²',
        '3' => '³',
        d => d.to_digit(10).and_then(|n| char::from_u32(0x2070 + n)).unwrap_or(d),
    }
}

/// Every symbol [`math`] writes, for a check that the app's fonts draw them all.
pub fn symbols() -> String {
    let mut s: String = SYMBOLS.iter().chain(GREEK.iter()).map(|(_, g)| *g).collect();
    s.extend("-0123456789".chars().map(superscript));
    s
}

/// The text without markup, as one plain string (for lists and labels).
pub fn plain(text: &str) -> String {
    match spans(text) {
        Ok(s) => s.into_iter().map(|s| s.text).collect(),
        Err(_) => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn styles(text: &str) -> Vec<(Style, String)> {
        spans(text).unwrap().into_iter().map(|s| (s.style, s.text)).collect()
    }

    #[test]
    fn markers_make_spans_and_math_reads_as_symbols() {
        assert_eq!(
            styles("Touch when $d^2 <= r^2 + eps$ holds, **not** *before* `slop`."),
            vec![
                (Style::Plain, "Touch when ".into()),
                (Style::Math, "d² ≤ r² + ε".into()),
                (Style::Plain, " holds, ".into()),
                (Style::Strong, "not".into()),
                (Style::Plain, " ".into()),
                (Style::Emphasis, "before".into()),
                (Style::Plain, " ".into()),
                (Style::Code, "slop".into()),
                (Style::Plain, ".".into()),
            ]
        );
        assert_eq!(math("d^2 <= r^2 + eps"), "d² ≤ r² + ε");
        assert_eq!(math("episode * pi"), "episode · π", "whole words only");
        assert_eq!(math("10^-6 m^2, x^n"), "10⁻⁶ m², x^n");
        assert_eq!(styles(r"a \*b\* \$5"), vec![(Style::Plain, "a *b* $5".into())]);
        assert_eq!(styles("`a*b`"), vec![(Style::Code, "a*b".into())], "no markup inside code");
        assert_eq!(plain("**Now** $v -> 0$"), "Now v → 0");
    }

    #[test]
    fn an_unclosed_or_crossed_marker_says_which_and_where() {
        let e = spans("ok **bold").unwrap_err().to_string();
        assert!(e.contains("`**` (strong) opened at character 3 is never closed"), "{e}");
        let e = spans("*a $b$ c*").unwrap_err().to_string();
        assert!(e.contains("`$` (math) opened at character 3 inside `*` (emphasis)"), "{e}");
        assert_eq!(styles("$a * b$"), vec![(Style::Math, "a · b".into())], "a product, not emphasis");
    }
}
