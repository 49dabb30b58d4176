//! A heatmap drawn by `charts` (plotters), made interactive: as SVG with a
//! focusable target over each cell, or, for many cells, on a canvas that
//! maps the pointer and the arrow keys to a cell. Either way the cell under
//! the pointer or the keyboard is named in a status line, and choosing a
//! cell emits its column.

use crate::charts::{heatmap_canvas, heatmap_size, heatmap_svg, Grid, Heatmap};
use crate::hooks::listen_on_window;
use wasm_bindgen::closure::Closure;
use web_sys::{HtmlCanvasElement, HtmlElement};
use yew::prelude::*;

/// The widest the chart is drawn.
const MAX_WIDTH: u32 = 1400;
/// The chart's frame (`.chart .plot`'s border, both sides), in CSS pixels.
const FRAME: i32 = 2;

/// The width in CSS pixels that a chart inside `node`'s parent may take,
/// read when it mounts and again on each window resize; `None` before the
/// first reading. Charts are drawn at this width rather than drawn wide and
/// scaled down by CSS, which shrank their text below a readable size.
#[hook]
fn use_available_width(node: NodeRef) -> Option<u32> {
    let width = use_state_eq(|| None::<u32>);
    {
        let width = width.clone();
        use_effect_with(node, move |node| {
            let node = node.clone();
            let measure = move || {
                let parent = node.cast::<HtmlElement>().and_then(|e| e.parent_element());
                if let Some(px) = parent.map(|p| p.client_width() - FRAME).filter(|px| *px > 0) {
                    width.set(Some(px as u32));
                }
            };
            measure();
            listen_on_window("resize", Closure::<dyn Fn()>::new(measure))
        });
    }
    *width
}

#[derive(Properties, PartialEq)]
pub struct HeatmapProps {
    pub id: AttrValue,
    pub title: AttrValue,
    /// Row labels, top to bottom.
    pub rows: Vec<String>,
    /// Column labels, left to right.
    pub columns: Vec<String>,
    /// Values by column, then row; `None` is an empty cell.
    pub values: Vec<Vec<Option<f64>>>,
    /// What each column is, for the status line (e.g. a run's id and file).
    pub column_names: Vec<String>,
    /// The top of the colour scale.
    pub max: f64,
    /// What the values are.
    pub unit: Unit,
    /// What an empty cell means.
    pub empty: AttrValue,
    pub on_cell: Callback<usize>,
    /// Draw on a canvas instead of as SVG.
    pub canvas: bool,
    pub cell_width: f64,
}

/// What a heatmap's values are, and so how they read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// A per-channel Risk Index.
    RiskIndex,
    /// A count of leaked secrets.
    LeakedSecrets,
}

impl Unit {
    /// A cell's value in words, for the status line and the cell's label.
    pub fn describe(self, value: f64) -> String {
        match self {
            Unit::RiskIndex => format!("RI {value:.4}"),
            Unit::LeakedSecrets => format!("{value:.0} leaked secrets"),
        }
    }

    /// A legend value.
    pub fn legend(self, value: f64) -> String {
        match self {
            Unit::RiskIndex => format!("{value:.2}"),
            Unit::LeakedSecrets => format!("{value:.0}"),
        }
    }
}

impl HeatmapProps {
    fn value(&self, column: usize, row: usize) -> Option<f64> {
        self.values.get(column).and_then(|v| v.get(row)).copied().flatten()
    }

    fn describe(&self, column: usize, row: usize) -> String {
        let value = match self.value(column, row) {
            Some(v) => self.unit.describe(v),
            None => self.empty.to_string(),
        };
        let name = self.column_names.get(column).or(self.columns.get(column)).map_or("", String::as_str);
        format!("{name} · {} · {value}", self.rows.get(row).map_or("", String::as_str))
    }

    fn map<'a>(&'a self, legend: &'a dyn Fn(f64) -> String) -> Heatmap<'a> {
        Heatmap {
            title: &self.title,
            rows: &self.rows,
            columns: &self.columns,
            values: &self.values,
            max: self.max,
            format: legend,
            cell_width: self.cell_width,
        }
    }
}

#[function_component(HeatmapView)]
pub fn heatmap_view(props: &HeatmapProps) -> Html {
    let cursor = use_state(|| None::<(usize, usize)>);
    let canvas_ref = use_node_ref();
    let chart_ref = use_node_ref();
    let drawn = use_state(|| None::<Result<Grid, String>>);
    let available = use_available_width(chart_ref.clone());
    let max_width = available.map(|px| px.min(MAX_WIDTH));

    let legend = |v: f64| props.unit.legend(v);
    let (width, height) = heatmap_size(&props.map(&legend), max_width.unwrap_or(MAX_WIDTH));
    let status = match *cursor {
        Some((c, r)) => props.describe(c, r),
        None if props.canvas => {
            "Point at a cell, or focus the chart and use the arrow keys; Enter opens the run.".to_owned()
        }
        None => "Point at or focus a cell to read it.".to_owned(),
    };

    {
        let canvas_ref = canvas_ref.clone();
        let drawn = drawn.clone();
        let key = (
            props.canvas,
            props.values.clone(),
            props.rows.clone(),
            props.columns.clone(),
            props.max,
            props.unit,
            max_width,
        );
        let cell_width = props.cell_width;
        use_effect_with(key, move |(canvas, values, rows, columns, max, unit, _)| {
            if let (true, Some(element)) = (*canvas, canvas_ref.cast::<HtmlCanvasElement>()) {
                let legend = |v: f64| unit.legend(v);
                let map = Heatmap { title: "", rows, columns, values, max: *max, format: &legend, cell_width };
                drawn.set(Some(heatmap_canvas(element, &map)));
            }
        });
    }

    let highlight_ref = use_node_ref();
    {
        let highlight_ref = highlight_ref.clone();
        let grid = match &*drawn {
            Some(Ok(grid)) => Some(*grid),
            _ => None,
        };
        use_effect_with((*cursor, grid), move |(cursor, grid)| {
            if let (Some((c, r)), Some(grid), Some(element)) = (cursor, grid, highlight_ref.cast::<HtmlElement>()) {
                let (x, y) = grid.origin(*c, *r);
                let pct = |v: f64, of: u32| format!("{:.3}%", v / of as f64 * 100.0);
                let style = element.style();
                for (name, value) in [
                    ("left", pct(x, grid.width)),
                    ("top", pct(y, grid.height)),
                    ("width", format!("max(3px, {})", pct(grid.cell_width, grid.width))),
                    ("height", pct(grid.cell_height, grid.height)),
                ] {
                    let _ = style.set_property(name, &value);
                }
            }
        });
    }

    let body = if max_width.is_none() {
        // Not measured yet: drawn once the width is known, before it is painted.
        html! {}
    } else if props.canvas {
        let grid = match &*drawn {
            Some(Ok(grid)) => Some(*grid),
            _ => None,
        };
        let to_cell = move |event: &MouseEvent| -> Option<(usize, usize)> {
            let grid = grid?;
            let canvas: HtmlCanvasElement = event.target_dyn_into()?;
            let scale = grid.width as f64 / canvas.client_width().max(1) as f64;
            grid.cell_at(event.offset_x() as f64 * scale, event.offset_y() as f64 * scale)
        };
        let on_move = {
            let cursor = cursor.clone();
            Callback::from(move |event: MouseEvent| {
                let cell = to_cell(&event);
                if *cursor != cell {
                    cursor.set(cell);
                }
            })
        };
        let on_click = {
            let on_cell = props.on_cell.clone();
            Callback::from(move |event: MouseEvent| {
                if let Some((column, _)) = to_cell(&event) {
                    on_cell.emit(column);
                }
            })
        };
        let on_key = {
            let (cursor, on_cell) = (cursor.clone(), props.on_cell.clone());
            let (columns, rows) = (props.columns.len(), props.rows.len());
            Callback::from(move |event: KeyboardEvent| {
                if columns == 0 || rows == 0 {
                    return;
                }
                let (c, r) = cursor.unwrap_or((0, 0));
                let step = if event.shift_key() { (columns / 20).max(1) } else { 1 };
                let next = match event.key().as_str() {
                    "ArrowRight" => (c.saturating_add(step).min(columns - 1), r),
                    "ArrowLeft" => (c.saturating_sub(step), r),
                    "ArrowDown" => (c, (r + 1).min(rows - 1)),
                    "ArrowUp" => (c, r.saturating_sub(1)),
                    "Home" => (0, r),
                    "End" => (columns - 1, r),
                    "Enter" | " " => {
                        event.prevent_default();
                        on_cell.emit(c);
                        return;
                    }
                    _ => return,
                };
                event.prevent_default();
                cursor.set(Some(next));
            })
        };
        let on_leave = {
            let cursor = cursor.clone();
            Callback::from(move |_: MouseEvent| cursor.set(None))
        };
        // Placed through the CSSOM: the page's CSP allows no style attributes.
        let highlight = html! { <div class="cell-highlight" ref={highlight_ref.clone()} hidden={cursor.is_none() || grid.is_none()}></div> };
        let error = match &*drawn {
            Some(Err(message)) => html! { <p class="error-message">{ message }</p> },
            _ => html! {},
        };
        html! {
            <div class="plot">
                <canvas ref={canvas_ref} width={width.to_string()} height={height.to_string()} tabindex="0"
                    role="img" aria-label={format!("{}: {} columns by {} rows; use the arrow keys to read cells", props.title, props.columns.len(), props.rows.len())}
                    onmousemove={on_move} onmouseleave={on_leave} onclick={on_click} onkeydown={on_key}></canvas>
                { highlight }
                { error }
            </div>
        }
    } else {
        match heatmap_svg(&props.map(&legend), max_width.unwrap_or(MAX_WIDTH)) {
            Ok((svg, grid)) => {
                let cells = (0..grid.rows).flat_map(|r| (0..grid.columns).map(move |c| (c, r))).map(|(c, r)| {
                    let (x, y) = grid.origin(c, r);
                    let label = props.describe(c, r);
                    let hover = {
                        let cursor = cursor.clone();
                        Callback::from(move |_: MouseEvent| cursor.set(Some((c, r))))
                    };
                    let focus = {
                        let cursor = cursor.clone();
                        Callback::from(move |_: FocusEvent| cursor.set(Some((c, r))))
                    };
                    let click = props.on_cell.reform(move |_: MouseEvent| c);
                    let key = {
                        let on_cell = props.on_cell.clone();
                        Callback::from(move |event: KeyboardEvent| {
                            if event.key() == "Enter" || event.key() == " " {
                                event.prevent_default();
                                on_cell.emit(c);
                            }
                        })
                    };
                    let value = props.value(c, r).map(|v| v.to_string()).unwrap_or_default();
                    html! {
                        <rect class="cell" x={format!("{x:.2}")} y={format!("{y:.2}")}
                            width={format!("{:.2}", grid.cell_width)} height={format!("{:.2}", grid.cell_height)}
                            tabindex="0" aria-label={label.clone()} data-column={c.to_string()} data-row={r.to_string()} data-value={value}
                            onmouseenter={hover} onfocus={focus} onclick={click} onkeydown={key}>
                            <title>{ label }</title>
                        </rect>
                    }
                });
                html! {
                    <div class="plot">
                        // Our own drawing: only channel names and numbers are in it.
                        { Html::from_html_unchecked(AttrValue::from(svg)) }
                        <svg class="hit" viewBox={format!("0 0 {} {}", grid.width, grid.height)} role="group" aria-label={props.title.clone()}>
                            { for cells }
                        </svg>
                    </div>
                }
            }
            Err(message) => html! { <p class="error-message">{ message }</p> },
        }
    };

    html! {
        <div class="chart heatmap" id={props.id.clone()} ref={chart_ref} data-render={if props.canvas { "canvas" } else { "svg" }}>
            { body }
            <p class="chart-status" aria-live="polite">{ status }</p>
        </div>
    }
}
