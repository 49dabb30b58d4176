//! Identifiers from files (run ids, file names, folder paths) in table
//! cells. A browser will not break `trace_agentleak_cor_00800` at all unless
//! told it may break anywhere, and then it cuts words in half; here a line
//! may break after `_`, `-` or `/` (a `<wbr>` after each) and nowhere else,
//! so a long id wraps at its own word boundaries.

use crate::components::text::shown;
use yew::prelude::*;

/// Whether a line may break after `c` in an identifier.
pub fn breaks_after(c: char) -> bool {
    matches!(c, '_' | '-' | '/')
}

/// `text` cut after each separator: the pieces between break points.
pub fn segments(text: &str) -> Vec<&str> {
    text.split_inclusive(breaks_after).collect()
}

/// `text` as shown text (hidden characters named, see `text::shown`) with a
/// break opportunity after each separator; the CSS class `ident` turns off
/// breaking anywhere else.
pub fn ident(text: &str) -> Html {
    let parts = segments(text);
    let last = parts.len().saturating_sub(1);
    html! {
        <span class="ident">{ for parts.into_iter().enumerate().map(|(i, part)| html! {
            <>{ shown(part) }if i < last { <wbr /> }</>
        }) }</span>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_identifier_breaks_only_after_its_separators() {
        assert_eq!(
            segments("trace_agentleak_cor-00800/a.json"),
            vec!["trace_", "agentleak_", "cor-", "00800/", "a.json"]
        );
        assert_eq!(segments("run_"), vec!["run_"], "no empty piece after a final separator");
        assert_eq!(segments("plain"), vec!["plain"]);
        assert_eq!(segments(""), Vec::<&str>::new());
        assert!(breaks_after('_') && breaks_after('-') && breaks_after('/'));
        assert!(!breaks_after('.') && !breaks_after('a'));
    }
}
