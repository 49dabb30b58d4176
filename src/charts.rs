//! The Batch tab's charts, drawn with plotters: heatmaps (channel × run
//! and channel × level) and a forest plot of per-channel leak rates; and the
//! Trend view's chart of batches over time.
//!
//! Each chart is drawn on any plotters backend: SVG text for small charts,
//! a `<canvas>` for heatmaps with many cells. The heatmap returns its
//! [`Grid`], the pixel geometry of its cells, so the page can put focusable
//! hit targets over them or map a pointer position back to a cell. Only our
//! own strings (channel names, numbers) are drawn into a chart; names that
//! come from files (run ids, agents) stay in the page's escaped markup.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::series::DashedLineSeries;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Chart text.
const FONT: &str = "sans-serif";
/// Text sizes in CSS pixels as shown: the page draws each chart at the size
/// it is shown at (no scaling), so these are what a reader sees at 100 %.
const TITLE_PX: f64 = 15.0;
/// Row labels (channel names).
const LABEL_PX: f64 = 13.0;
/// Axis ticks, legend values and notes: the smallest text on a chart.
const SMALL_PX: f64 = 12.0;

/// How a backend writes a text size. plotters' canvas backend sets the
/// size as CSS pixels, but its SVG backend writes `font-size` as the size
/// divided by 1.24 (an em-to-pixel guess of its own), which made 12-pixel
/// labels come out at 9.7 pixels; SVG sizes are multiplied back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextUnits {
    Svg,
    Canvas,
}

impl TextUnits {
    /// The plotters size that shows as `px` CSS pixels on this backend.
    pub fn size(self, px: f64) -> f64 {
        match self {
            TextUnits::Svg => px * 1.24,
            TextUnits::Canvas => px,
        }
    }
}
const INK: RGBColor = RGBColor(0x1f, 0x29, 0x37);
const MUTED: RGBColor = RGBColor(0x6b, 0x72, 0x80);
const PAPER: RGBColor = RGBColor(0xff, 0xff, 0xff);
/// Forest plot marks and its threshold line.
const ACCENT: RGBColor = RGBColor(0x1d, 0x4e, 0xd8);
const THRESHOLD: RGBColor = RGBColor(0xb9, 0x1c, 0x1c);
/// A cell with no value at all (a channel the run has no events on).
const EMPTY: RGBColor = RGBColor(0xf3, 0xf4, 0xf6);

/// Stops of the sequential colour scale, from 0 to the maximum
/// (ColorBrewer "OrRd", 5 classes, without its palest stop).
const SCALE: [RGBColor; 5] = [
    RGBColor(0xfe, 0xf0, 0xd9),
    RGBColor(0xfd, 0xcc, 0x8a),
    RGBColor(0xfc, 0x8d, 0x59),
    RGBColor(0xe3, 0x4a, 0x33),
    RGBColor(0xb3, 0x00, 0x00),
];

/// The colour of `value` on a scale from 0 to `max` (linear between stops).
pub fn scale_colour(value: f64, max: f64) -> RGBColor {
    let t = if max > 0.0 { (value / max).clamp(0.0, 1.0) } else { 0.0 };
    let at = t * (SCALE.len() - 1) as f64;
    let i = (at.floor() as usize).min(SCALE.len() - 2);
    let f = at - i as f64;
    let (a, b) = (SCALE[i], SCALE[i + 1]);
    let mix = |x: u8, y: u8| (x as f64 + (y as f64 - x as f64) * f).round() as u8;
    RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// Where a heatmap's cells are, in the chart's pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Grid {
    pub width: u32,
    pub height: u32,
    pub left: f64,
    pub top: f64,
    pub cell_width: f64,
    pub cell_height: f64,
    pub columns: usize,
    pub rows: usize,
}

impl Grid {
    /// The cell (column, row) under a point, if any.
    pub fn cell_at(&self, x: f64, y: f64) -> Option<(usize, usize)> {
        let column = ((x - self.left) / self.cell_width).floor();
        let row = ((y - self.top) / self.cell_height).floor();
        let inside = column >= 0.0 && row >= 0.0 && (column as usize) < self.columns && (row as usize) < self.rows;
        inside.then_some((column as usize, row as usize))
    }

    /// The top-left corner of a cell.
    pub fn origin(&self, column: usize, row: usize) -> (f64, f64) {
        (self.left + column as f64 * self.cell_width, self.top + row as f64 * self.cell_height)
    }
}

/// What a heatmap shows.
pub struct Heatmap<'a> {
    pub title: &'a str,
    /// Row labels, top to bottom.
    pub rows: &'a [String],
    /// Column labels, left to right (only some are drawn when many).
    pub columns: &'a [String],
    /// Values by column, then row; `None` draws an empty cell.
    pub values: &'a [Vec<Option<f64>>],
    /// The top of the colour scale.
    pub max: f64,
    /// How the legend prints a value.
    pub format: &'a dyn Fn(f64) -> String,
    /// Cell width in pixels when the chart is as wide as it needs to be.
    pub cell_width: f64,
}

const LABEL_WIDTH: f64 = 170.0;
const LEGEND_WIDTH: f64 = 90.0;
const TITLE_HEIGHT: f64 = 28.0;
const AXIS_HEIGHT: f64 = 34.0;
const ROW_HEIGHT: f64 = 26.0;
const MIN_CELLS_WIDTH: f64 = 420.0;

/// The size a heatmap wants: at most `max_width` wide.
pub fn heatmap_size(map: &Heatmap<'_>, max_width: u32) -> (u32, u32) {
    let cells = (map.columns.len().max(1) as f64 * map.cell_width).min(max_width as f64 - LABEL_WIDTH - LEGEND_WIDTH);
    // Few columns still get a readable chart.
    let width = (LABEL_WIDTH + cells.max(MIN_CELLS_WIDTH) + LEGEND_WIDTH).ceil() as u32;
    let height = (TITLE_HEIGHT + map.rows.len() as f64 * ROW_HEIGHT + AXIS_HEIGHT).ceil() as u32;
    (width, height)
}

fn err<E: std::fmt::Debug>(e: E) -> String {
    format!("cannot draw the chart: {e:?}")
}

/// Draws `map` over the whole of `area` and says where its cells are.
pub fn draw_heatmap<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    map: &Heatmap<'_>,
    units: TextUnits,
) -> Result<Grid, String> {
    let (width, height) = area.dim_in_pixel();
    area.fill(&PAPER).map_err(err)?;
    let columns = map.columns.len().max(1);
    let grid = Grid {
        width,
        height,
        left: LABEL_WIDTH,
        top: TITLE_HEIGHT,
        cell_width: (width as f64 - LABEL_WIDTH - LEGEND_WIDTH) / columns as f64,
        cell_height: ROW_HEIGHT,
        columns: map.columns.len(),
        rows: map.rows.len(),
    };
    let text = |px: f64, colour: &'static RGBColor, h: HPos, v: VPos| {
        TextStyle::from((FONT, units.size(px)).into_font()).color(colour).pos(Pos::new(h, v))
    };
    let px = |x: f64, y: f64| (x.round() as i32, y.round() as i32);

    area.draw(&Text::new(map.title.to_owned(), px(8.0, 8.0), text(TITLE_PX, &INK, HPos::Left, VPos::Top)))
        .map_err(err)?;
    for (row, label) in map.rows.iter().enumerate() {
        let y = grid.top + (row as f64 + 0.5) * grid.cell_height;
        area.draw(&Text::new(label.clone(), px(grid.left - 8.0, y), text(LABEL_PX, &INK, HPos::Right, VPos::Center)))
            .map_err(err)?;
    }
    // Fills first, then thin separators where cells are wide enough.
    for row in 0..grid.rows {
        for column in 0..grid.columns {
            let (x, y) = grid.origin(column, row);
            let colour = match map.values.get(column).and_then(|v| v.get(row)).copied().flatten() {
                Some(v) => scale_colour(v, map.max),
                None => EMPTY,
            };
            let corner = px(x + grid.cell_width, y + grid.cell_height);
            area.draw(&Rectangle::new([px(x, y), corner], colour.filled())).map_err(err)?;
        }
    }
    if grid.cell_width >= 6.0 {
        for row in 0..grid.rows {
            for column in 0..grid.columns {
                let (x, y) = grid.origin(column, row);
                let corner = px(x + grid.cell_width, y + grid.cell_height);
                area.draw(&Rectangle::new([px(x, y), corner], PAPER.stroke_width(1))).map_err(err)?;
            }
        }
    }
    // Column labels: all when they fit, else about one per 64 pixels.
    let every = ((64.0 / grid.cell_width).ceil() as usize).max(1);
    let axis_y = grid.top + grid.rows as f64 * grid.cell_height + 6.0;
    for (column, label) in map.columns.iter().enumerate().filter(|(c, _)| c % every == 0) {
        let x = grid.left + (column as f64 + 0.5) * grid.cell_width;
        area.draw(&Text::new(label.clone(), px(x, axis_y), text(SMALL_PX, &MUTED, HPos::Center, VPos::Top)))
            .map_err(err)?;
    }
    // Legend: the scale from 0 (bottom) to the maximum (top).
    let legend_x = width as f64 - LEGEND_WIDTH + 16.0;
    let (top, bottom) = (grid.top, grid.top + (grid.rows.max(2) as f64) * grid.cell_height);
    let steps = 40;
    for i in 0..steps {
        let y0 = bottom - (i + 1) as f64 * (bottom - top) / steps as f64;
        let y1 = bottom - i as f64 * (bottom - top) / steps as f64;
        let value = map.max * (i as f64 + 0.5) / steps as f64;
        area.draw(&Rectangle::new([px(legend_x, y0), px(legend_x + 14.0, y1)], scale_colour(value, map.max).filled()))
            .map_err(err)?;
    }
    for (value, y) in [(map.max, top), (0.0, bottom)] {
        area.draw(&Text::new(
            (map.format)(value),
            px(legend_x + 20.0, y),
            text(SMALL_PX, &MUTED, HPos::Left, VPos::Center),
        ))
        .map_err(err)?;
    }
    area.present().map_err(err)?;
    Ok(grid)
}

/// `map` as SVG text, with its grid.
pub fn heatmap_svg(map: &Heatmap<'_>, max_width: u32) -> Result<(String, Grid), String> {
    let mut svg = String::new();
    let size = heatmap_size(map, max_width);
    let grid = {
        let area = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        draw_heatmap(&area, map, TextUnits::Svg)?
    };
    Ok((svg, grid))
}

/// The forest plot's width: it is shown at this size (see `TextUnits`).
pub const FOREST_WIDTH: u32 = 680;
/// Room for a row label such as `inter_agent_message (n=1000)` at 13 px.
const FOREST_LABEL_WIDTH: i32 = 220;

/// One row of the forest plot.
pub struct ForestRow {
    pub label: String,
    /// Point estimate and interval, as shares; `None` when n = 0.
    pub estimate: Option<(f64, f64, f64)>,
}

/// A forest plot of shares with their intervals and a reference line at
/// `threshold` (a share), as SVG text.
pub fn forest_svg(title: &str, rows: &[ForestRow], threshold: f64) -> Result<String, String> {
    let units = TextUnits::Svg;
    let width = FOREST_WIDTH;
    let height = (TITLE_HEIGHT + rows.len() as f64 * ROW_HEIGHT + 68.0) as u32;
    let mut svg = String::new();
    {
        let area = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        area.fill(&PAPER).map_err(err)?;
        let text = |px: f64, colour: &'static RGBColor, h: HPos, v: VPos| {
            TextStyle::from((FONT, units.size(px)).into_font()).color(colour).pos(Pos::new(h, v))
        };
        area.draw(&Text::new(title.to_owned(), (8, 8), text(TITLE_PX, &INK, HPos::Left, VPos::Top))).map_err(err)?;
        let n = rows.len().max(1) as f64;
        let mut chart = ChartBuilder::on(&area)
            .margin_top(TITLE_HEIGHT as i32)
            .margin_right(24)
            .margin_left(8)
            .x_label_area_size(48)
            .y_label_area_size(FOREST_LABEL_WIDTH)
            .build_cartesian_2d(0f64..1f64, 0f64..n)
            .map_err(err)?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .y_labels(0)
            .x_labels(6)
            .x_label_formatter(&|x| format!("{:.0}%", x * 100.0))
            .x_desc("share of runs that leaked on the channel")
            .axis_desc_style((FONT, units.size(SMALL_PX)).into_font().color(&MUTED))
            .label_style((FONT, units.size(SMALL_PX)).into_font().color(&MUTED))
            .max_light_lines(1)
            .light_line_style(RGBColor(0xf3, 0xf4, 0xf6))
            .draw()
            .map_err(err)?;
        // Row i from the top sits at y = n - i - 0.5.
        let y_of = |i: usize| n - i as f64 - 0.5;
        for (i, row) in rows.iter().enumerate() {
            let y = y_of(i);
            let (lx, ly) = chart.backend_coord(&(0.0, y));
            area.draw(&Text::new(row.label.clone(), (lx - 8, ly), text(LABEL_PX, &INK, HPos::Right, VPos::Center)))
                .map_err(err)?;
            if let Some((rate, lower, upper)) = row.estimate {
                chart
                    .draw_series(std::iter::once(PathElement::new(
                        vec![(lower, y), (upper, y)],
                        ACCENT.stroke_width(2),
                    )))
                    .map_err(err)?;
                for end in [lower, upper] {
                    chart
                        .draw_series(std::iter::once(PathElement::new(
                            vec![(end, y - 0.15), (end, y + 0.15)],
                            ACCENT.stroke_width(2),
                        )))
                        .map_err(err)?;
                }
                chart.draw_series(std::iter::once(Circle::new((rate, y), 5, ACCENT.filled()))).map_err(err)?;
            } else {
                chart
                    .draw_series(std::iter::once(Text::new(
                        "no runs with events here".to_owned(),
                        (0.01, y),
                        text(SMALL_PX, &MUTED, HPos::Left, VPos::Center),
                    )))
                    .map_err(err)?;
            }
        }
        let limit = threshold.clamp(0.0, 1.0);
        chart
            .draw_series(DashedLineSeries::new(vec![(limit, 0.0), (limit, n)], 6, 4, THRESHOLD.stroke_width(2)))
            .map_err(err)?;
        let (tx, ty) = chart.backend_coord(&(limit, n));
        area.draw(&Text::new(
            format!("threshold {:.0}%", limit * 100.0),
            (tx + 4, ty + 2),
            text(SMALL_PX, &THRESHOLD, HPos::Left, VPos::Top),
        ))
        .map_err(err)?;
        area.present().map_err(err)?;
    }
    Ok(svg)
}

/// The trend chart's width: it is shown at this size (see `TextUnits`).
pub const TREND_WIDTH: u32 = 560;
/// Block rate and mean RI lines.
const BLOCK: RGBColor = RGBColor(0x37, 0x41, 0x51);
const MEAN_RI: RGBColor = RGBColor(0xb5, 0x47, 0x08);
/// Verdict bands, Pass to Fail (the page's verdict colours).
const VERDICT_COLOURS: [RGBColor; 4] =
    [RGBColor(0x1c, 0x7c, 0x3c), RGBColor(0xd9, 0xa4, 0x06), RGBColor(0xea, 0x6c, 0x1e), RGBColor(0xb4, 0x23, 0x18)];

/// Batches over time as SVG text: on top, the leak rate with its interval
/// as a band, the block rate and the mean Risk Index; below, each batch's
/// verdict shares as a stacked bar. Batches are `#1`, `#2`, … in the
/// history's order; their names (from files) stay in the table beside.
pub fn trend_svg(history: &agentrisk::compare::history::History) -> Result<String, String> {
    let units = TextUnits::Svg;
    let n = history.batches.len();
    let (width, top_height, bottom_height) = (TREND_WIDTH, 300u32, 150u32);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, top_height + bottom_height)).into_drawing_area();
        root.fill(&PAPER).map_err(err)?;
        let (top, bottom) = root.split_vertically(top_height);
        let text = |px: f64, colour: &'static RGBColor, h: HPos, v: VPos| {
            TextStyle::from((FONT, units.size(px)).into_font()).color(colour).pos(Pos::new(h, v))
        };
        let font = |px: f64| (FONT, units.size(px)).into_font();
        top.draw(&Text::new(
            "Leak rate, block rate and mean RI by batch".to_owned(),
            (8, 8),
            text(TITLE_PX, &INK, HPos::Left, VPos::Top),
        ))
        .map_err(err)?;
        let x_range = -0.5f64..(n.max(1) as f64 - 0.5);
        let batch_label = |x: &f64| {
            let i = x.round();
            if (x - i).abs() < 1e-9 && i >= 0.0 && (i as usize) < n {
                format!("#{}", i as usize + 1)
            } else {
                String::new()
            }
        };
        let mut chart = ChartBuilder::on(&top)
            .margin_top(TITLE_HEIGHT as i32 + 22)
            .margin_right(24)
            .margin_left(8)
            .x_label_area_size(30)
            .y_label_area_size(56)
            .build_cartesian_2d(x_range.clone(), 0f64..1f64)
            .map_err(err)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(n.max(1))
            .x_label_formatter(&batch_label)
            .y_labels(6)
            .y_label_formatter(&|y| format!("{:.0}%", y * 100.0))
            .y_desc("share of runs · RI")
            .axis_desc_style(font(SMALL_PX).color(&MUTED))
            .label_style(font(SMALL_PX).color(&MUTED))
            .max_light_lines(1)
            .light_line_style(RGBColor(0xf3, 0xf4, 0xf6))
            .draw()
            .map_err(err)?;
        // The leak rate's interval as a band, then the three lines.
        let points = |pick: &dyn Fn(&agentrisk::compare::history::HistoryBatch) -> Option<f64>| -> Vec<(f64, f64)> {
            history.batches.iter().enumerate().filter_map(|(i, b)| pick(b).map(|v| (i as f64, v))).collect()
        };
        let lower = points(&|b| b.leak_rate.lower);
        let upper = points(&|b| b.leak_rate.upper);
        if lower.len() > 1 {
            let band: Vec<(f64, f64)> = upper.iter().copied().chain(lower.iter().rev().copied()).collect();
            chart.draw_series(std::iter::once(Polygon::new(band, ACCENT.mix(0.15).filled()))).map_err(err)?;
        }
        for (x, y0, y1) in history
            .batches
            .iter()
            .enumerate()
            .filter_map(|(i, b)| Some((i as f64, b.leak_rate.lower?, b.leak_rate.upper?)))
        {
            chart
                .draw_series(std::iter::once(PathElement::new(vec![(x, y0), (x, y1)], ACCENT.mix(0.6).stroke_width(1))))
                .map_err(err)?;
        }
        // Lines and marks drawn one element at a time, with the element
        // types the forest plot already uses (each new plotters series type
        // would add its own code to the download).
        let leak = points(&|b| b.leak_rate.rate);
        let block = points(&|b| b.block_rate.rate);
        let ri = points(&|b| b.mean_risk_index);
        chart.draw_series(std::iter::once(PathElement::new(leak.clone(), ACCENT.stroke_width(2)))).map_err(err)?;
        chart.draw_series(DashedLineSeries::new(block.clone(), 6, 4, BLOCK.stroke_width(2))).map_err(err)?;
        chart.draw_series(std::iter::once(PathElement::new(ri.clone(), MEAN_RI.stroke_width(2)))).map_err(err)?;
        for &point in &leak {
            chart.draw_series(std::iter::once(Circle::new(point, 4, ACCENT.filled()))).map_err(err)?;
        }
        for &(x, y) in &block {
            let mark = Rectangle::new([(x - 0.04, y - 0.012), (x + 0.04, y + 0.012)], BLOCK.filled());
            chart.draw_series(std::iter::once(mark)).map_err(err)?;
        }
        for &(x, y) in &ri {
            let mark = Rectangle::new([(x - 0.025, y - 0.02), (x + 0.025, y + 0.02)], MEAN_RI.filled());
            chart.draw_series(std::iter::once(mark)).map_err(err)?;
        }
        // The key, in one row above the plot.
        let key_y = TITLE_HEIGHT as i32 + 4;
        let mut x = 60;
        for (label, colour, dashed) in
            [("leak rate (band: interval)", ACCENT, false), ("block rate", BLOCK, true), ("mean RI", MEAN_RI, false)]
        {
            let line: Vec<(i32, i32)> = vec![(x, key_y + 8), (x + 22, key_y + 8)];
            if dashed {
                top.draw(&PathElement::new(vec![(x, key_y + 8), (x + 8, key_y + 8)], colour.stroke_width(2)))
                    .map_err(err)?;
                top.draw(&PathElement::new(vec![(x + 13, key_y + 8), (x + 22, key_y + 8)], colour.stroke_width(2)))
                    .map_err(err)?;
            } else {
                top.draw(&PathElement::new(line, colour.stroke_width(2))).map_err(err)?;
            }
            top.draw(&Text::new(label.to_owned(), (x + 28, key_y + 8), text(SMALL_PX, &INK, HPos::Left, VPos::Center)))
                .map_err(err)?;
            x += 28 + (label.chars().count() as i32) * 7 + 24;
        }

        // Verdict shares, one stacked bar per batch.
        bottom
            .draw(&Text::new("Verdict shares by batch".to_owned(), (8, 4), text(LABEL_PX, &INK, HPos::Left, VPos::Top)))
            .map_err(err)?;
        let mut bars = ChartBuilder::on(&bottom)
            .margin_top(24)
            .margin_right(24)
            .margin_left(8)
            .x_label_area_size(26)
            .y_label_area_size(56)
            .build_cartesian_2d(x_range, 0f64..1f64)
            .map_err(err)?;
        bars.configure_mesh()
            .disable_x_mesh()
            .disable_y_mesh()
            .x_labels(n.max(1))
            .x_label_formatter(&batch_label)
            .y_labels(3)
            .y_label_formatter(&|y| format!("{:.0}%", y * 100.0))
            .label_style(font(SMALL_PX).color(&MUTED))
            .draw()
            .map_err(err)?;
        for (i, batch) in history.batches.iter().enumerate() {
            let x = i as f64;
            let mut from = 0.0;
            for (share, colour) in batch.verdicts.iter().zip(VERDICT_COLOURS) {
                let to = from + share.share.rate.unwrap_or(0.0);
                if to > from {
                    bars.draw_series(std::iter::once(Rectangle::new(
                        [(x - 0.3, from), (x + 0.3, to)],
                        colour.filled(),
                    )))
                    .map_err(err)?;
                }
                from = to;
            }
        }
        // The verdicts' key, right of the panel's title.
        let mut x = 200;
        for (verdict, colour) in agentrisk::Verdict::ALL.iter().zip(VERDICT_COLOURS) {
            bottom.draw(&Rectangle::new([(x, 6), (x + 10, 16)], colour.filled())).map_err(err)?;
            bottom
                .draw(&Text::new(
                    verdict.as_str().to_owned(),
                    (x + 14, 11),
                    text(SMALL_PX, &INK, HPos::Left, VPos::Center),
                ))
                .map_err(err)?;
            x += 14 + verdict.as_str().chars().count() as i32 * 7 + 14;
        }
        root.present().map_err(err)?;
    }
    Ok(svg)
}

/// Draws `map` on a canvas element, sized to the canvas.
pub fn heatmap_canvas(canvas: web_sys::HtmlCanvasElement, map: &Heatmap<'_>) -> Result<Grid, String> {
    let backend = plotters_canvas::CanvasBackend::with_canvas_object(canvas)
        .ok_or_else(|| "cannot draw the chart: the canvas has no 2D context".to_owned())?;
    draw_heatmap(&backend.into_drawing_area(), map, TextUnits::Canvas)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample<'a>(rows: &'a [String], columns: &'a [String], values: &'a [Vec<Option<f64>>]) -> Heatmap<'a> {
        Heatmap {
            title: "RI by channel and run",
            rows,
            columns,
            values,
            max: 1.0,
            format: &|v| format!("{v:.2}"),
            cell_width: 30.0,
        }
    }

    #[test]
    fn the_colour_scale_runs_from_pale_to_dark_red() {
        assert_eq!(scale_colour(0.0, 1.0), SCALE[0]);
        assert_eq!(scale_colour(1.0, 1.0), SCALE[4]);
        assert_eq!(scale_colour(0.5, 1.0), SCALE[2]);
        assert_eq!(scale_colour(7.0, 0.0), SCALE[0], "no maximum: everything at the bottom");
        assert_eq!(scale_colour(2.0, 1.0), SCALE[4], "clamped");
    }

    #[test]
    fn a_heatmap_says_where_each_cell_is() {
        let rows: Vec<String> = ["final_output", "tool_call"].map(String::from).to_vec();
        let columns: Vec<String> = (1..=3).map(|i| format!("#{i}")).collect();
        let values: Vec<Vec<Option<f64>>> =
            (0..3).map(|c| (0..2).map(|r| (c != 1).then_some((c + r) as f64 / 4.0)).collect()).collect();
        let (svg, grid) = heatmap_svg(&sample(&rows, &columns, &values), 2000).unwrap();
        assert_eq!((grid.columns, grid.rows), (3, 2));
        // Three 30-pixel columns are widened to the minimum plot width.
        assert_eq!(grid.cell_width, MIN_CELLS_WIDTH / 3.0);
        assert!(svg.starts_with("<svg") && svg.contains("final_output") && svg.contains("#3"));
        // The middle of cell (2, 1), and points outside the cells.
        let (x, y) = grid.origin(2, 1);
        assert_eq!(grid.cell_at(x + 15.0, y + 13.0), Some((2, 1)));
        assert_eq!(grid.cell_at(grid.left - 1.0, y), None);
        assert_eq!(grid.cell_at(x + grid.cell_width + 1.0, y), None, "right of the last column");
        assert_eq!(grid.cell_at(x - 1.0, y), Some((1, 1)));
        // Column 1 has no values: drawn in the empty colour.
        assert!(svg.contains("#F3F4F6") || svg.contains("#f3f4f6"), "{svg}");
    }

    #[test]
    fn many_columns_shrink_to_the_width_given() {
        let rows: Vec<String> = vec!["log".into()];
        let columns: Vec<String> = (0..5000).map(|i| i.to_string()).collect();
        let values = vec![vec![Some(0.5)]; 5000];
        let map = sample(&rows, &columns, &values);
        let (width, _) = heatmap_size(&map, 1200);
        assert_eq!(width, 1200);
    }

    #[test]
    fn the_forest_plot_labels_rows_and_the_threshold() {
        let rows = [
            ForestRow { label: "tool_call (n=10)".into(), estimate: Some((0.5, 0.237, 0.763)) },
            ForestRow { label: "log (n=0)".into(), estimate: None },
        ];
        let svg = forest_svg("Leak rate by channel", &rows, 0.25).unwrap();
        assert!(svg.contains("tool_call (n=10)") && svg.contains("log (n=0)"));
        assert!(svg.contains("threshold 25%") && svg.contains("no runs with events here"));
        assert!(svg.contains("<circle"));
        assert!(svg.starts_with(&format!("<svg width=\"{FOREST_WIDTH}\"")), "{}", &svg[..80]);
    }

    /// Every `font-size` an SVG chart sets, in pixels.
    fn font_sizes(svg: &str) -> Vec<f64> {
        svg.split("font-size=\"")
            .skip(1)
            .map(|rest| rest.split('"').next().and_then(|v| v.parse().ok()).unwrap_or(f64::NAN))
            .collect()
    }

    #[test]
    fn svg_chart_text_is_at_least_12_pixels() {
        let rows: Vec<String> = ["inter_agent_message", "log"].map(String::from).to_vec();
        let columns: Vec<String> = (1..=40).map(|i| format!("#{i}")).collect();
        let values = vec![vec![Some(0.5), None]; 40];
        let (svg, _) = heatmap_svg(&sample(&rows, &columns, &values), 900).unwrap();
        let sizes = font_sizes(&svg);
        // Title, two row labels, the column labels drawn, two legend values.
        assert!(sizes.len() > 5, "{sizes:?}");
        // (The SVG backend's division leaves float noise: 13.000000000000002.)
        let near = |px: f64| sizes.iter().any(|s| (s - px).abs() < 1e-9);
        assert!(sizes.iter().all(|&s| s >= SMALL_PX - 1e-9), "{sizes:?}");
        assert!(near(SMALL_PX) && near(LABEL_PX) && near(TITLE_PX), "{sizes:?}");

        let forest =
            forest_svg("Leak rate", &[ForestRow { label: "log (n=3)".into(), estimate: Some((0.3, 0.1, 0.6)) }], 0.5)
                .unwrap();
        let sizes = font_sizes(&forest);
        assert!(sizes.len() > 8, "title, label, ticks, axis name, threshold: {sizes:?}");
        assert!(sizes.iter().all(|&s| s >= SMALL_PX - 1e-9), "{sizes:?}");
    }

    #[test]
    fn the_trend_chart_draws_each_batch_and_its_key() {
        use agentrisk::batch::RunFacts;
        use agentrisk::compare::history::{history, HistoryInput};
        let run = |leaked: u64, verdict: &str| -> RunFacts {
            serde_json::from_value(serde_json::json!({
                "file": "r.json", "source": "report", "run_id": "r", "risk_index": 0.1 * leaked as f64,
                "privacy_score": 50, "verdict": verdict, "blocked": leaked > 1, "leaked_secrets": leaked,
                "vault_secrets": 10, "level_profile": {}, "vault_level_profile": {}, "channel_ri": {},
                "channel_leaks": {}, "event_channels": null,
            }))
            .unwrap()
        };
        let weeks =
            [vec![run(0, "Pass"), run(2, "Fail")], vec![run(1, "High risk")], vec![run(0, "Pass"), run(0, "Pass")]];
        let names = ["w1", "w2", "w3"];
        let inputs: Vec<HistoryInput<'_>> =
            weeks.iter().zip(names).map(|(runs, name)| HistoryInput { name, generated_at: None, runs }).collect();
        let svg = trend_svg(&history(&inputs, agentrisk::stats::IntervalMethod::default())).unwrap();
        assert!(svg.starts_with(&format!("<svg width=\"{TREND_WIDTH}\"")), "{}", &svg[..80]);
        for label in [
            "#1",
            "#2",
            "#3",
            "leak rate (band: interval)",
            "block rate",
            "mean RI",
            "Pass",
            "Fail",
            "Verdict shares by batch",
        ] {
            assert!(svg.contains(label), "{label}");
        }
        // One dot per batch's leak rate; no batch name from a file is drawn.
        assert_eq!(svg.matches("<circle").count(), 3);
        assert!(!svg.contains("w1"));
        assert!(font_sizes(&svg).iter().all(|&s| s >= SMALL_PX - 1e-9), "{:?}", font_sizes(&svg));
    }

    #[test]
    fn text_units_show_the_same_size_on_both_backends() {
        // plotters' SVG backend divides by 1.24 when it writes the size.
        assert_eq!(TextUnits::Svg.size(12.0) / 1.24, 12.0);
        assert_eq!(TextUnits::Canvas.size(12.0), 12.0);
    }
}
