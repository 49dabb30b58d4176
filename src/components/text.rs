//! Text from files, shown as data. Yew writes text as text nodes, so markup
//! in a trace stays inert; what is left are characters a reader cannot see
//! or that change what the reader sees around them: control characters,
//! bidirectional overrides (a run id that reads backwards) and zero-width
//! characters (two values that look equal and are not). Each is shown as
//! its code point, marked, and the text's direction is isolated by CSS.

use yew::prelude::*;

/// A piece of shown text: plain, or one character shown by its code point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Piece<'a> {
    Plain(&'a str),
    Hidden(char),
}

/// Whether `c` is shown by its code point: C0 and C1 controls (but tab and
/// line feed, which lay text out as the writer meant), the bidirectional
/// marks, embeddings, overrides and isolates, and the zero-width and other
/// invisible formatting characters.
pub fn is_hidden(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c,
            '\u{00AD}' | '\u{061C}' | '\u{115F}' | '\u{1160}' | '\u{180E}'
            | '\u{200B}'..='\u{200F}' | '\u{2028}'..='\u{202E}' | '\u{2060}'..='\u{206F}'
            | '\u{3164}' | '\u{FEFF}' | '\u{FFF9}'..='\u{FFFB}' | '\u{E0000}'..='\u{E007F}')
}

/// `text` cut into plain runs and hidden characters.
pub fn pieces(text: &str) -> Vec<Piece<'_>> {
    let mut pieces = Vec::new();
    let mut start = 0;
    for (at, c) in text.char_indices() {
        if is_hidden(c) {
            if start < at {
                pieces.push(Piece::Plain(&text[start..at]));
            }
            pieces.push(Piece::Hidden(c));
            start = at + c.len_utf8();
        }
    }
    if start < text.len() {
        pieces.push(Piece::Plain(&text[start..]));
    }
    pieces
}

/// `U+202E`, as a hidden character is written.
pub fn code_point(c: char) -> String {
    format!("U+{:04X}", u32::from(c))
}

/// `text` for the page: hidden characters as marked code points.
pub fn shown(text: &str) -> Html {
    if !text.chars().any(is_hidden) {
        return html! { { text.to_owned() } };
    }
    html! {
        <bdi class="shown-text">{ for pieces(text).into_iter().map(|piece| match piece {
            Piece::Plain(plain) => html! { { plain.to_owned() } },
            Piece::Hidden(c) => {
                let code = code_point(c);
                html! { <span class="hidden-char" title={format!("invisible character {code}")}>{ format!("⟨{code}⟩") }</span> }
            }
        }) }</bdi>
    }
}

/// `text` for an attribute or a chart label: hidden characters as `⟨U+…⟩`.
pub fn shown_plain(text: &str) -> String {
    pieces(text)
        .into_iter()
        .map(|piece| match piece {
            Piece::Plain(plain) => plain.to_owned(),
            Piece::Hidden(c) => format!("⟨{}⟩", code_point(c)),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invisible_and_reordering_characters_are_cut_out_and_named() {
        let text = "run\u{202E}gnp.exe\u{200B}x\u{0007}\u{85}é\n\tend";
        assert_eq!(
            pieces(text),
            vec![
                Piece::Plain("run"),
                Piece::Hidden('\u{202E}'),
                Piece::Plain("gnp.exe"),
                Piece::Hidden('\u{200B}'),
                Piece::Plain("x"),
                Piece::Hidden('\u{7}'),
                Piece::Hidden('\u{85}'),
                Piece::Plain("é\n\tend"),
            ]
        );
        assert_eq!(shown_plain(text), "run⟨U+202E⟩gnp.exe⟨U+200B⟩x⟨U+0007⟩⟨U+0085⟩é\n\tend");
        assert_eq!(shown_plain("<script>alert(1)</script>"), "<script>alert(1)</script>");
        assert_eq!(pieces(""), vec![]);
        assert_eq!(code_point('\u{E0041}'), "U+E0041");
        assert!(is_hidden('\u{FEFF}') && is_hidden('\u{2066}') && !is_hidden(' ') && !is_hidden('\u{202F}'));
    }
}
