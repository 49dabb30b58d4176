//! Long tables a page at a time. A large trace lists thousands of events
//! and findings; drawing them all at once held the page up for seconds
//! (most of it the browser laying out the rows), so a table shows
//! [`PAGE_ROWS`] rows and a pager moves between pages. A link to a row on
//! another page turns to that page first ([`Reveal`]).

use super::group_digits;
use std::ops::Range;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// Rows per page.
pub const PAGE_ROWS: usize = 200;

/// A request to bring a row into view: `target` names the row, and
/// `request` counts the requests, so that asking for the same row again
/// (after scrolling away) is a change too.
#[derive(Debug, Clone, PartialEq)]
pub struct Reveal<T> {
    pub target: T,
    pub request: u32,
}

/// How many pages `total` rows take (at least one).
pub fn page_count(total: usize) -> usize {
    total.div_ceil(PAGE_ROWS).max(1)
}

/// The rows on page `page` of `total` rows; a page past the end (after a
/// filter left fewer rows) shows the last page.
pub fn page_rows(total: usize, page: usize) -> Range<usize> {
    let page = page.min(page_count(total) - 1);
    page * PAGE_ROWS..((page + 1) * PAGE_ROWS).min(total)
}

/// [`page_rows`], or every row when `all` (while printing).
pub fn on_page_or_all(total: usize, page: usize, all: bool) -> Range<usize> {
    if all {
        0..total
    } else {
        page_rows(total, page)
    }
}

/// The page that shows the row at `position`.
pub fn page_of(position: usize) -> usize {
    position / PAGE_ROWS
}

/// Scrolls the element with DOM id `id` (a table row) to the middle of the
/// view and gives it focus, so keyboard users land on it too. False when no
/// such element is on the page (yet).
pub fn reveal_row(id: &str) -> bool {
    let Some(row) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id(id))
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
    else {
        return false;
    };
    let scroll = web_sys::ScrollIntoViewOptions::new();
    scroll.set_block(web_sys::ScrollLogicalPosition::Center);
    row.scroll_into_view_with_scroll_into_view_options(&scroll);
    let focus = web_sys::FocusOptions::new();
    focus.set_prevent_scroll(true);
    // Focus can only fail on an element that cannot take it; rows have a tabindex.
    let _ = row.focus_with_options(&focus);
    true
}

/// Follows reveal requests in a paged table: on a new request, turns to
/// the page that holds the row (`page_of_target`) and, once the row is
/// drawn, brings it into view. A row the table does not list (`None`: a
/// filter hides it) is not revealed, then or later.
#[hook]
pub fn use_reveal<T: Clone + PartialEq + 'static>(
    reveal: Option<Reveal<T>>,
    page_of_target: Option<usize>,
    page: UseStateHandle<usize>,
    row_id: fn(&T) -> String,
) {
    let pending = use_mut_ref(|| None::<String>);
    {
        let pending = pending.clone();
        use_effect_with(reveal, move |reveal| {
            *pending.borrow_mut() = None;
            if let (Some(reveal), Some(target)) = (reveal, page_of_target) {
                *pending.borrow_mut() = Some(row_id(&reveal.target));
                if target != *page {
                    page.set(target);
                }
            }
        });
    }
    // After every render: the row may be drawn now.
    use_effect(move || {
        let id = pending.borrow().clone();
        if id.is_some_and(|id| reveal_row(&id)) {
            *pending.borrow_mut() = None;
        }
    });
}

#[derive(Properties, PartialEq)]
pub struct PagerProps {
    /// The DOM id of the pager.
    pub id: AttrValue,
    /// What the rows are, for the pager's accessible name ("events").
    pub noun: AttrValue,
    pub total: usize,
    /// The table's current page, which the buttons set.
    pub page: UseStateHandle<usize>,
}

/// First / previous / next / last, and which rows show. Nothing when all
/// rows fit on one page.
#[function_component(Pager)]
pub fn pager(props: &PagerProps) -> Html {
    if props.total <= PAGE_ROWS {
        return html! {};
    }
    let last = page_count(props.total) - 1;
    let page = (*props.page).min(last);
    let rows = page_rows(props.total, page);
    let button = |label: &'static str, class: &'static str, to: usize, enabled: bool| {
        let state = props.page.clone();
        let onclick = Callback::from(move |_: MouseEvent| state.set(to));
        html! { <button type="button" class={classes!("pager-button", class)} disabled={!enabled} {onclick}>{ label }</button> }
    };
    html! {
        <nav class="pager" id={props.id.clone()} aria-label={format!("Pages of {}", props.noun)}
            data-page={page.to_string()} data-pages={(last + 1).to_string()}>
            { button("« First", "first", 0, page > 0) }
            { button("‹ Previous", "previous", page.saturating_sub(1), page > 0) }
            <span class="pager-status" aria-live="polite">
                { format!("Rows {}–{} of {} · page {} of {}", group_digits(rows.start + 1), group_digits(rows.end),
                    group_digits(props.total), group_digits(page + 1), group_digits(last + 1)) }
            </span>
            { button("Next ›", "next", (page + 1).min(last), page < last) }
            { button("Last »", "last", last, page < last) }
        </nav>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_cut_into_pages_and_a_page_past_the_end_shows_the_last() {
        assert_eq!((page_count(0), page_rows(0, 0)), (1, 0..0));
        assert_eq!((page_count(PAGE_ROWS), page_rows(PAGE_ROWS, 0)), (1, 0..PAGE_ROWS));
        assert_eq!(page_count(5_000), 25);
        assert_eq!(page_rows(5_000, 1), 200..400);
        assert_eq!(page_rows(5_050, 25), 5_000..5_050);
        assert_eq!(page_rows(450, 7), 400..450);
        assert_eq!((page_of(0), page_of(199), page_of(200), page_of(4_999)), (0, 0, 1, 24));
    }
}
