//! The run's flow graph (report `flow`): users and tools, agents, and sinks
//! (memory, logs, files, output) in three columns, an arrow per (source,
//! target, channel), arrows that carried a leaked secret in red with their
//! level; and the leak paths (report `leak_paths`), how each leaked secret
//! moved, a page at a time. Drawn as markup, so every name from the trace
//! stays escaped text.

use crate::components::pager::{on_page_or_all, Pager};
use crate::components::text::{shown, shown_plain};
use agentrisk::model::{Flow, LeakPath};
use agentrisk::workspace::{LEAK_PATH_LIMIT, LEAK_STEP_LIMIT};
use std::rc::Rc;
use yew::prelude::*;

const LANE_X: [f64; 3] = [20.0, 330.0, 640.0];
const NODE_W: f64 = 200.0;
const NODE_H: f64 = 34.0;
const GAP: f64 = 22.0;
const TOP: f64 = 30.0;

/// An edge label's line height and the width of one of its characters
/// (10 px text), for keeping labels apart.
const LABEL_H: f64 = 12.0;
const CHAR_W: f64 = 5.6;

/// The box an edge label covers: left, right, top and bottom.
#[derive(Debug, Clone, Copy, PartialEq)]
struct LabelBox(f64, f64, f64, f64);

impl LabelBox {
    /// The box of `text` drawn at (`x`, `y`, the baseline) with SVG's `anchor`.
    fn new(x: f64, y: f64, anchor: &str, text: &str) -> LabelBox {
        let width = text.chars().count() as f64 * CHAR_W;
        let left = match anchor {
            "end" => x - width,
            "middle" => x - width / 2.0,
            _ => x,
        };
        LabelBox(left, left + width, y - LABEL_H + 2.0, y + 2.0)
    }

    fn overlaps(&self, other: &LabelBox) -> bool {
        self.0 < other.1 && other.0 < self.1 && self.2 < other.3 && other.2 < self.3
    }

    fn down(self) -> LabelBox {
        LabelBox(self.0, self.1, self.2 + LABEL_H, self.3 + LABEL_H)
    }
}

/// Moves `label` down a line at a time until it covers none of `placed`,
/// keeps it, and returns its baseline.
fn clear_of(placed: &mut Vec<LabelBox>, mut label: LabelBox) -> f64 {
    // Bounded: each step clears at least one line, so this many steps
    // clear every label placed so far.
    for _ in 0..=placed.len() {
        if !placed.iter().any(|p| p.overlaps(&label)) {
            break;
        }
        label = label.down();
    }
    placed.push(label);
    label.3 - 2.0
}

/// A node's box: its lane and its place in the lane.
fn node_box(lane: u8, row: usize) -> (f64, f64) {
    (LANE_X[usize::from(lane.min(2))], TOP + row as f64 * (NODE_H + GAP))
}

#[derive(Properties, PartialEq)]
pub struct FlowProps {
    pub flow: Flow,
    pub leak_paths: Rc<Vec<LeakPath>>,
    /// Every leak path at once, no pages (while printing).
    pub all_pages: bool,
}

#[function_component(FlowView)]
pub fn flow_view(props: &FlowProps) -> Html {
    let page = use_state(|| 0usize);
    let paths = &props.leak_paths[on_page_or_all(props.leak_paths.len(), *page, props.all_pages)];
    let flow = &props.flow;
    let mut rows = [0usize; 3];
    let places: Vec<(String, f64, f64, &str)> = flow
        .nodes
        .iter()
        .map(|n| {
            let lane = usize::from(n.lane.min(2));
            let (x, y) = node_box(n.lane, rows[lane]);
            rows[lane] += 1;
            (n.id.clone(), x, y, n.kind.as_str())
        })
        .collect();
    let place = |id: &str| places.iter().find(|(n, ..)| n == id).map(|(_, x, y, _)| (*x, *y));
    // Room below the last row for labels moved down to stay clear.
    let height = TOP + rows.iter().max().copied().unwrap_or(1) as f64 * (NODE_H + GAP) + 20.0 + LABEL_H * 2.0;
    let width = LANE_X[2] + NODE_W + 20.0;

    // Edges between the same two nodes are fanned out, and a label that
    // would cover one already placed moves down a line until it is clear.
    let mut seen: Vec<(String, String)> = Vec::new();
    let mut labels: Vec<LabelBox> = Vec::new();
    let edges = flow.edges.iter().filter_map(|e| {
        let ((sx, sy), (tx, ty)) = (place(&e.source)?, place(&e.target)?);
        let pair = (e.source.clone(), e.target.clone());
        let nth = seen.iter().filter(|p| **p == pair).count() as f64;
        seen.push(pair);
        let (x1, y1) = (sx + NODE_W, sy + NODE_H / 2.0 + nth * 6.0);
        let (x2, y2) = if tx > sx { (tx, ty + NODE_H / 2.0 + nth * 6.0) } else { (tx + NODE_W, ty + NODE_H / 2.0 + nth * 6.0) };
        let bend = if tx > sx { (x2 - x1) / 2.0 } else { 80.0 + nth * 20.0 };
        let d = if tx > sx {
            format!("M {x1:.1} {y1:.1} C {:.1} {y1:.1}, {:.1} {y2:.1}, {x2:.1} {y2:.1}", x1 + bend, x2 - bend)
        } else {
            format!("M {x1:.1} {y1:.1} C {:.1} {y1:.1}, {:.1} {y2:.1}, {x2:.1} {y2:.1}", x1 + bend, x2 + bend)
        };
        // Labels sit just before the arrowhead, where edges into different
        // nodes are apart; backward edges label their outer bend.
        let (mx, my, anchor) = if tx > sx { (x2 - 8.0, y2 - 5.0, "end") } else { (x1 + bend * 0.75, (y1 + y2) / 2.0, "middle") };
        let label = if e.leaked {
            format!("{} · {} leaked", e.channel.as_str(), e.level_label)
        } else {
            e.channel.as_str().to_owned()
        };
        let my = clear_of(&mut labels, LabelBox::new(mx, my, anchor, &label));
        let title = format!(
            "{} → {} on {}: {} events{}",
            e.source,
            e.target,
            e.channel.as_str(),
            e.count,
            if e.leaked { format!(", leaked up to {}", e.level_label) } else { String::new() }
        );
        let class = classes!("edge", e.leaked.then_some("leaked"), e.leaked.then(|| format!("level-{}", e.level)));
        Some(html! {
            <g {class} data-source={e.source.clone()} data-target={e.target.clone()} data-channel={e.channel.as_str()} data-leaked={e.leaked.to_string()}>
                <title>{ title }</title>
                <path d={d} marker-end={if e.leaked { "url(#arrow-leaked)" } else { "url(#arrow)" }} />
                <text x={format!("{mx:.1}")} y={format!("{my:.1}")} text-anchor={anchor}>{ label }</text>
            </g>
        })
    });
    let nodes = places.iter().map(|(id, x, y, kind)| {
        html! {
            <g class={classes!("node", kind.to_string())} data-node={id.clone()}>
                <title>{ shown_plain(&format!("{id} ({kind})")) }</title>
                <rect x={format!("{x:.1}")} y={format!("{y:.1}")} width={NODE_W.to_string()} height={NODE_H.to_string()} rx="6" />
                <text x={format!("{:.1}", x + 10.0)} y={format!("{:.1}", y + 22.0)}>{ shown_plain(&shorten(id)) }<tspan class="kind">{ format!("  {kind}") }</tspan></text>
            </g>
        }
    });
    let leaked_edges = flow.edges.iter().filter(|e| e.leaked).count();
    html! {
        <section class="flow" aria-labelledby="flow-title">
            <h3 id="flow-title">{ "Flow of the run" }</h3>
            <p class="muted">{ format!("{} nodes and {} connections; {} connections carried a leaked secret (red, with the highest level leaked on them). Inputs and tools on the left, agents in the middle, where data ends up on the right.", flow.nodes.len(), flow.edges.len(), leaked_edges) }</p>
            <div class="flow-wrap">
                <svg class="flow-graph" viewBox={format!("0 0 {width} {height:.0}")} width={width.to_string()} role="img"
                    aria-label={format!("Flow graph: {} nodes, {} connections, {leaked_edges} leaky; the table below lists them", flow.nodes.len(), flow.edges.len())}>
                    <defs>
                        <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" class="arrowhead" /></marker>
                        <marker id="arrow-leaked" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" class="arrowhead leaked" /></marker>
                    </defs>
                    <text class="lane-title" x={LANE_X[0].to_string()} y="16">{ "inputs and tools" }</text>
                    <text class="lane-title" x={LANE_X[1].to_string()} y="16">{ "agents" }</text>
                    <text class="lane-title" x={LANE_X[2].to_string()} y="16">{ "sinks" }</text>
                    // Edges after nodes, so no box hides a label.
                    { for nodes }
                    { for edges }
                </svg>
            </div>
            <table class="flow-table" id="flow-table">
                <caption>{ "Connections" }</caption>
                <thead><tr><th scope="col">{ "Source" }</th><th scope="col">{ "Target" }</th><th scope="col">{ "Channel" }</th>
                    <th scope="col" class="num">{ "Events" }</th><th scope="col">{ "Leaked" }</th></tr></thead>
                <tbody>{ for flow.edges.iter().map(|e| html! {
                    <tr data-leaked={e.leaked.to_string()}>
                        <td>{ shown(&e.source) }</td><td>{ shown(&e.target) }</td><td class="mono">{ e.channel.as_str() }</td>
                        <td class="num">{ e.count }</td><td>{ if e.leaked { e.level_label.clone() } else { "—".to_owned() } }</td>
                    </tr>
                }) }</tbody>
            </table>
            <h3 id="paths-title">{ format!("Leak paths ({})", props.leak_paths.len()) }</h3>
            if props.leak_paths.len() >= LEAK_PATH_LIMIT {
                <p class="muted">{ format!("The page lists the first {LEAK_PATH_LIMIT} leak paths and at most {LEAK_STEP_LIMIT} steps of each; the report has them all.") }</p>
            }
            if props.leak_paths.is_empty() {
                <p class="muted">{ "No secret leaked, so no path." }</p>
            } else {
                if !props.all_pages {
                    <Pager id="paths-pager" noun="leak paths" total={props.leak_paths.len()} page={page.clone()} />
                }
                <div class="table-wrap">
                    <table class="paths-table" id="paths-table" aria-labelledby="paths-title">
                        <thead><tr><th scope="col">{ "Data type" }</th><th scope="col">{ "Value (redacted)" }</th><th scope="col">{ "Level" }</th>
                            <th scope="col">{ "Entered via" }</th><th scope="col">{ "Path" }</th><th scope="col" class="num">{ "Leaks" }</th></tr></thead>
                        <tbody>{ for paths.iter().map(|p| html! {
                            <tr data-type={p.data_type.clone()}>
                                <td>{ &p.data_type }</td><td class="mono value">{ &p.value }</td>
                                <td><span class={classes!("level", p.level.badge())}>{ p.level.label() }</span></td>
                                <td class="mono">{ p.entered_via.map_or("—", |c| c.as_str()) }</td>
                                <td>{ shown(&p.steps.iter().map(|s| format!("{} {} → {} ({})", s.event_id, s.source, s.target, s.channel.as_str())).collect::<Vec<_>>().join(" ⟶ ")) }</td>
                                <td class="num">{ p.leak_count }</td>
                            </tr>
                        }) }</tbody>
                    </table>
                </div>
            }
        </section>
    }
}

/// Long names are cut in the drawing; the table and the tooltip have them whole.
fn shorten(id: &str) -> String {
    if id.chars().count() > 22 {
        format!("{}…", id.chars().take(21).collect::<String>())
    } else {
        id.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_label_that_would_cover_another_moves_down_until_clear() {
        let mut placed = Vec::new();
        assert_eq!(clear_of(&mut placed, LabelBox::new(100.0, 50.0, "end", "tool_response")), 50.0);
        // Same place, overlapping: one line down.
        assert_eq!(clear_of(&mut placed, LabelBox::new(90.0, 52.0, "end", "user_input")), 64.0);
        // A third one goes below both (the second sat two pixels lower).
        assert_eq!(clear_of(&mut placed, LabelBox::new(80.0, 50.0, "middle", "log")), 86.0);
        // Elsewhere, untouched.
        assert_eq!(clear_of(&mut placed, LabelBox::new(400.0, 50.0, "start", "log")), 50.0);
    }
}
