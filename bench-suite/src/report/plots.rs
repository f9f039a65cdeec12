//! SVG plots of a sweep (plotters, SVG backend only). Each file answers one question, named
//! in its title; per target:
//!
//! * `plot-<target>-totals.svg` — *which configuration leaves the fewest copies, spills and
//!   cycles?* One panel per quantity (static and weighted moves, executed moves, spill loads +
//!   stores, cycles), one horizontal bar per configuration: its total over the kernels the
//!   tables count, with the first configuration's total as a dashed reference line.
//! * `plot-<target>-static-vs-dynamic.svg` — *do static copy counts predict executed ones?*
//!   One point per kernel under the first configuration: `moves_final` and `weighted_moves`
//!   (x) against `dyn_moves` (y), log–log, with Spearman's rank correlation of each in the
//!   legend. Kernels with a zero on either axis cannot sit on a log axis: they are counted in
//!   the caption.
//! * `plot-<target>-ratios-<metric>.svg` (`moves_final`, `dyn_moves`, `cycles`) — *per kernel,
//!   how does each configuration compare with the first?* Small multiples, one panel per
//!   compared configuration: each kernel's count divided by the first configuration's,
//!   sorted ascending (Brandner & Colombet 2011, Figures 11–17), on a log axis shared by the
//!   panels so that one outlier no longer flattens the rest; the two lowest and two highest
//!   kernels (when not 1.0) are labelled with their function's name. A ratio of 0 is drawn
//!   as a triangle on the bottom edge; a kernel with 0 under the first configuration has no
//!   ratio (the README counts both).
//!
//! Determinism: series are sorted by (value, program, function); plotters' SVG output is a
//! pure function of its input, so equal data gives byte-identical files.
//!
//! Complexity: O(k log k · c) for k kernels and c configurations per target.

use super::data::{Dataset, Metric, TargetSelection};
use plotters::coord::ranged1d::SegmentValue;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// One plot file, with what the README says of it.
pub struct PlotFile {
    pub file: String,
    /// The question the plot answers (its title).
    pub question: String,
    /// What it shows, with the numbers a reader needs to trust it.
    pub description: String,
    pub svg: String,
}

/// The quantities of the totals chart, one panel each.
const TOTAL_METRICS: [Metric; 5] = [
    Metric::MovesFinal,
    Metric::WeightedMoves,
    Metric::DynMoves,
    Metric::DynSpills,
    Metric::Cycles,
];

/// The metrics that get a ratio plot.
pub const RATIO_METRICS: [Metric; 3] = [Metric::MovesFinal, Metric::DynMoves, Metric::Cycles];

/// How many kernels are named at each end of a ratio panel.
const LABELLED: usize = 2;

/// What a relative plot showed, for the README.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RatioSummary {
    /// Kernels with a ratio (first configuration's count > 0).
    pub plotted: usize,
    pub below: usize,
    pub equal: usize,
    pub above: usize,
    /// Kernels whose ratio is 0 (drawn on the bottom edge).
    pub zero: usize,
    /// Kernels with 0 under the first configuration (no ratio) …
    pub zero_base: usize,
    /// … of which this many have a nonzero count under the compared configuration.
    pub zero_base_gained: usize,
    /// Upper median ratio of the kernels with one.
    pub median: Option<f64>,
}

/// One kernel's ratio and name.
#[derive(Clone, Debug, PartialEq)]
pub struct RatioPoint {
    pub ratio: f64,
    pub program: String,
    pub function: String,
}

/// Ratios `value / first` of one metric for compared configuration `config`, sorted
/// ascending (ties by program, function), plus the summary.
pub fn ratios(
    ds: &Dataset,
    sel: &TargetSelection,
    metric: Metric,
    config: usize,
) -> (Vec<RatioPoint>, RatioSummary) {
    let mut points = Vec::new();
    let mut sum = RatioSummary::default();
    for ((program, function), (_, rows)) in &sel.kernels {
        let base = metric.value(&ds.rows[rows[0]]);
        let value = metric.value(&ds.rows[rows[config]]);
        if base == 0 {
            sum.zero_base += 1;
            sum.zero_base_gained += usize::from(value > 0);
            continue;
        }
        match value.cmp(&base) {
            std::cmp::Ordering::Less => sum.below += 1,
            std::cmp::Ordering::Equal => sum.equal += 1,
            std::cmp::Ordering::Greater => sum.above += 1,
        }
        sum.zero += usize::from(value == 0);
        points.push(RatioPoint {
            ratio: value as f64 / base as f64,
            program: program.clone(),
            function: function.clone(),
        });
    }
    points.sort_by(|a, b| {
        a.ratio
            .total_cmp(&b.ratio)
            .then_with(|| (&a.program, &a.function).cmp(&(&b.program, &b.function)))
    });
    sum.plotted = points.len();
    sum.median = points.get(points.len() / 2).map(|p| p.ratio);
    (points, sum)
}

/// A file name part: ASCII letters, digits, `-`, `_` and `.` kept, anything else `_`.
pub fn file_part(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// A short metric name for titles and file names (`spills` for the sum of both columns).
fn short(metric: Metric) -> &'static str {
    match metric {
        Metric::DynSpills => "spills",
        m => m.column(),
    }
}

/// An axis number without float noise: `1.5`, `0.25`, `12k`, `3.4M`.
fn human(v: f64) -> String {
    let a = v.abs();
    if a >= 1e9 {
        format!("{:.1}G", v / 1e9)
    } else if a >= 1e6 {
        format!("{:.1}M", v / 1e6)
    } else if a >= 1e4 {
        format!("{:.0}k", v / 1e3)
    } else if a >= 10.0 || a == 0.0 {
        format!("{v:.0}")
    } else if a >= 1.0 {
        format!("{v:.1}")
    } else if a >= 0.01 {
        format!("{v:.2}")
    } else {
        format!("{v:.1e}")
    }
}

/// Every plot of one target, in a fixed order.
pub fn render_target(
    ds: &Dataset,
    target: &str,
    sel: &TargetSelection,
) -> Result<Vec<PlotFile>, String> {
    let mut out = vec![
        totals_plot(ds, target, sel)?,
        scatter_plot(ds, target, sel)?,
    ];
    if ds.configs.len() > 1 {
        for metric in RATIO_METRICS {
            out.push(ratio_plot(ds, target, sel, metric)?);
        }
    }
    Ok(out)
}

fn plot_err(title: String) -> impl Fn(&dyn std::fmt::Display) -> String {
    move |e| format!("plot `{title}`: {e}")
}

/// Total of `metric` per configuration over the selected kernels.
fn totals(ds: &Dataset, sel: &TargetSelection, metric: Metric) -> Vec<u64> {
    let mut sums = vec![0u64; ds.configs.len()];
    for (_, rows) in sel.kernels.values() {
        for (s, &i) in sums.iter_mut().zip(rows) {
            *s = s.saturating_add(metric.value(&ds.rows[i]));
        }
    }
    sums
}

fn totals_plot(ds: &Dataset, target: &str, sel: &TargetSelection) -> Result<PlotFile, String> {
    let n = ds.configs.len();
    let question = format!(
        "{target}: which configuration leaves the fewest copies, spills and cycles? (totals over {} kernels; lower is better)",
        sel.kernels.len()
    );
    let err = plot_err(question.clone());
    let panel_w = 380u32;
    let height = 90 + 20 * n as u32;
    let mut svg = String::new();
    {
        let root =
            SVGBackend::with_string(&mut svg, (panel_w * TOTAL_METRICS.len() as u32, height))
                .into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(&e))?;
        let root = root
            .titled(&question, ("sans-serif", 18))
            .map_err(|e| err(&e))?;
        let panels = root.split_evenly((1, TOTAL_METRICS.len()));
        for (panel, metric) in panels.iter().zip(TOTAL_METRICS) {
            let sums = totals(ds, sel, metric);
            let max = sums.iter().copied().max().unwrap_or(0).max(1) as f64;
            let mut chart = ChartBuilder::on(panel)
                .caption(metric.column(), ("sans-serif", 14))
                .margin(6)
                .x_label_area_size(24)
                .y_label_area_size(130)
                .build_cartesian_2d(0.0..max * 1.5, (0..n).into_segmented())
                .map_err(|e| err(&e))?;
            let names = &ds.configs;
            chart
                .configure_mesh()
                .disable_y_mesh()
                .y_labels(n)
                .y_label_formatter(&|v| match v {
                    SegmentValue::CenterOf(i) if *i < n => names[n - 1 - i].clone(),
                    _ => String::new(),
                })
                .x_labels(4)
                .x_label_formatter(&|x| human(*x))
                .label_style(("sans-serif", 11))
                .draw()
                .map_err(|e| err(&e))?;
            // The first configuration at the top: configuration i sits in segment n-1-i.
            chart
                .draw_series(sums.iter().enumerate().map(|(i, &v)| {
                    let seg = n - 1 - i;
                    let color = if i == 0 {
                        BLACK.mix(0.6)
                    } else {
                        BLUE.mix(0.6)
                    };
                    let mut bar = Rectangle::new(
                        [
                            (0.0, SegmentValue::Exact(seg)),
                            (v as f64, SegmentValue::Exact(seg + 1)),
                        ],
                        color.filled(),
                    );
                    bar.set_margin(3, 3, 0, 0);
                    bar
                }))
                .map_err(|e| err(&e))?;
            let value_style = TextStyle::from(("sans-serif", 10).into_font())
                .pos(Pos::new(HPos::Left, VPos::Center));
            let first = sums.first().copied().unwrap_or(0);
            chart
                .draw_series(sums.iter().enumerate().map(|(i, &v)| {
                    let change = if i == 0 || first == 0 {
                        String::new()
                    } else {
                        format!(
                            " ({:+.1}%)",
                            (v as f64 - first as f64) * 100.0 / first as f64
                        )
                    };
                    Text::new(
                        format!(" {v}{change}"),
                        (v as f64, SegmentValue::CenterOf(n - 1 - i)),
                        value_style.clone(),
                    )
                }))
                .map_err(|e| err(&e))?;
            let first = first as f64;
            chart
                .draw_series(DashedLineSeries::new(
                    [
                        (first, SegmentValue::Exact(0)),
                        (first, SegmentValue::Exact(n)),
                    ],
                    4,
                    3,
                    BLACK.stroke_width(1),
                ))
                .map_err(|e| err(&e))?;
        }
        root.present().map_err(|e| err(&e))?;
    }
    let description =
        format!(
        "one panel per quantity ({}), one bar per configuration, the first ({}) in grey and as \
         the dashed line; each bar is labelled with its total (the **all** row of `tables.md`) and \
         its change from the first",
        TOTAL_METRICS.map(|m| format!("`{}`", m.column())).join(", "),
        ds.configs[0]
    );
    Ok(PlotFile {
        file: format!("plot-{}-totals.svg", file_part(target)),
        question,
        description,
        svg,
    })
}

/// Ranks (1-based, ties averaged) of `v`.
fn ranks(v: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..v.len()).collect();
    order.sort_by(|&a, &b| v[a].total_cmp(&v[b]).then(a.cmp(&b)));
    let mut r = vec![0.0; v.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && v[order[j + 1]] == v[order[i]] {
            j += 1;
        }
        let rank = (i + j) as f64 / 2.0 + 1.0;
        for &k in &order[i..=j] {
            r[k] = rank;
        }
        i = j + 1;
    }
    r
}

/// Spearman's rank correlation of two equal-length series (None if either is constant).
pub fn spearman(x: &[f64], y: &[f64]) -> Option<f64> {
    let (rx, ry) = (ranks(x), ranks(y));
    let n = rx.len() as f64;
    if n < 2.0 {
        return None;
    }
    let (mx, my) = (rx.iter().sum::<f64>() / n, ry.iter().sum::<f64>() / n);
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in rx.iter().zip(&ry) {
        sxy += (a - mx) * (b - my);
        sxx += (a - mx) * (a - mx);
        syy += (b - my) * (b - my);
    }
    (sxx > 0.0 && syy > 0.0).then(|| sxy / (sxx * syy).sqrt())
}

fn scatter_plot(ds: &Dataset, target: &str, sel: &TargetSelection) -> Result<PlotFile, String> {
    let first = &ds.configs[0];
    let question = format!(
        "{target}: do static copy counts predict executed copies? ({first}, one point per kernel, log-log)"
    );
    let err = plot_err(question.clone());
    let rows: Vec<[f64; 3]> = sel
        .kernels
        .values()
        .map(|(_, r)| {
            let row = &ds.rows[r[0]];
            [
                Metric::MovesFinal.value(row) as f64,
                Metric::WeightedMoves.value(row) as f64,
                Metric::DynMoves.value(row) as f64,
            ]
        })
        .collect();
    let dynamic: Vec<f64> = rows.iter().map(|r| r[2]).collect();
    let series = [
        ("moves_final", 0usize, BLUE, "static moves"),
        ("weighted_moves", 1, RED, "weighted moves (5^depth)"),
    ];
    let mut legend = Vec::new();
    let mut hidden = Vec::new();
    for (name, k, _, _) in series {
        let x: Vec<f64> = rows.iter().map(|r| r[k]).collect();
        let rho = spearman(&x, &dynamic).map_or("-".to_string(), |r| format!("{r:.2}"));
        legend.push(format!("{name} (Spearman {rho})"));
        hidden.push(rows.iter().filter(|r| r[k] == 0.0 || r[2] == 0.0).count());
    }
    let positive = |v: f64| if v > 0.0 { v } else { 1.0 };
    let x_max = rows
        .iter()
        .map(|r| positive(r[0]).max(r[1]))
        .fold(1.0, f64::max)
        * 2.0;
    let y_max = rows.iter().map(|r| r[2]).fold(1.0, f64::max) * 2.0;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (900, 640)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(&e))?;
        let mut chart = ChartBuilder::on(&root)
            .caption(&question, ("sans-serif", 16))
            .margin(12)
            .x_label_area_size(44)
            .y_label_area_size(70)
            .build_cartesian_2d((1.0..x_max).log_scale(), (1.0..y_max).log_scale())
            .map_err(|e| err(&e))?;
        chart
            .configure_mesh()
            .x_desc("static count in the final code (moves_final, weighted_moves)")
            .y_desc("executed moves (dyn_moves)")
            .x_label_formatter(&|x| human(*x))
            .y_label_formatter(&|y| human(*y))
            .draw()
            .map_err(|e| err(&e))?;
        for ((_, k, color, _), label) in series.iter().zip(&legend) {
            let pts: Vec<(f64, f64)> = rows
                .iter()
                .filter(|r| r[*k] > 0.0 && r[2] > 0.0)
                .map(|r| (r[*k], r[2]))
                .collect();
            let c = *color;
            if *k == 0 {
                chart
                    .draw_series(pts.iter().map(|&p| Circle::new(p, 3, c.mix(0.7).filled())))
                    .map_err(|e| err(&e))?
                    .label(label)
                    .legend(move |(x, y)| Circle::new((x + 8, y), 3, c.filled()));
            } else {
                chart
                    .draw_series(pts.iter().map(|&p| Cross::new(p, 3, c.mix(0.7))))
                    .map_err(|e| err(&e))?
                    .label(label)
                    .legend(move |(x, y)| Cross::new((x + 8, y), 3, c));
            }
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE)
            .border_style(BLACK)
            .draw()
            .map_err(|e| err(&e))?;
        root.present().map_err(|e| err(&e))?;
    }
    let description = format!(
        "{} kernels under `{first}`; {}; points with a 0 on either axis are not drawn ({} for \
         `moves_final`, {} for `weighted_moves`). A rank correlation near 1 means the static \
         count orders kernels as the executed count does",
        rows.len(),
        legend.join(", "),
        hidden[0],
        hidden[1]
    );
    Ok(PlotFile {
        file: format!("plot-{}-static-vs-dynamic.svg", file_part(target)),
        question,
        description,
        svg,
    })
}

fn ratio_plot(
    ds: &Dataset,
    target: &str,
    sel: &TargetSelection,
    metric: Metric,
) -> Result<PlotFile, String> {
    let first = &ds.configs[0];
    let question = format!(
        "{target}: per kernel, how does each configuration's {} compare with {first}? (ratio to {first}, log scale, lower is better)",
        short(metric)
    );
    let err = plot_err(question.clone());
    let compared: Vec<(usize, Vec<RatioPoint>, RatioSummary)> = (1..ds.configs.len())
        .map(|c| {
            let (p, s) = ratios(ds, sel, metric, c);
            (c, p, s)
        })
        .collect();
    // One log axis for every panel: from below the smallest positive ratio (and 1) to above
    // the largest; a ratio of 0 sits on the floor.
    let all = compared
        .iter()
        .flat_map(|(_, p, _)| p.iter().map(|r| r.ratio));
    let min_pos = all.clone().filter(|&r| r > 0.0).fold(1.0, f64::min);
    let max = all.fold(1.0, f64::max);
    let (lo, hi) = (min_pos / 1.6, max * 1.6);
    let cols = 4usize.min(compared.len()).max(1);
    let rows = compared.len().div_ceil(cols).max(1);
    let (panel_w, panel_h) = (430u32, 280u32);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(
            &mut svg,
            (panel_w * cols as u32, 40 + panel_h * rows as u32),
        )
        .into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(&e))?;
        let root = root
            .titled(&question, ("sans-serif", 18))
            .map_err(|e| err(&e))?;
        let panels = root.split_evenly((rows, cols));
        for (panel, (c, points, sum)) in panels.iter().zip(&compared) {
            ratio_panel(panel, &ds.configs[*c], points, sum, (lo, hi)).map_err(|e| err(&e))?;
        }
        root.present().map_err(|e| err(&e))?;
    }
    let description = format!(
        "one panel per configuration against `{first}`: each kernel's `{}` divided by \
         `{first}`'s, sorted ascending, on a log axis shared by all panels (1 = the same); the \
         {LABELLED} lowest and highest kernels are named; the counts per configuration are in \
         the table below",
        metric.column()
    );
    Ok(PlotFile {
        file: format!("plot-{}-ratios-{}.svg", file_part(target), short(metric)),
        question,
        description,
        svg,
    })
}

/// One configuration's sorted ratios in one panel.
fn ratio_panel<DB: DrawingBackend>(
    panel: &DrawingArea<DB, plotters::coord::Shift>,
    config: &str,
    points: &[RatioPoint],
    sum: &RatioSummary,
    (lo, hi): (f64, f64),
) -> Result<(), String> {
    let e = |e: &dyn std::fmt::Display| e.to_string();
    let n = points.len().max(1) as f64;
    let median = sum.median.map_or("-".to_string(), |m| format!("{m:.3}"));
    let caption = format!(
        "{config}: {} fewer, {} equal, {} more (median {median})",
        sum.below, sum.equal, sum.above
    );
    let mut chart = ChartBuilder::on(panel)
        .caption(caption, ("sans-serif", 12))
        .margin(6)
        .x_label_area_size(20)
        .y_label_area_size(44)
        .build_cartesian_2d(0.0..n, (lo..hi).log_scale())
        .map_err(|x| e(&x))?;
    chart
        .configure_mesh()
        .x_labels(3)
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_labels(6)
        .y_label_formatter(&|y| human(*y))
        .label_style(("sans-serif", 10))
        .draw()
        .map_err(|x| e(&x))?;
    chart
        .draw_series(LineSeries::new([(0.0, 1.0), (n, 1.0)], BLACK))
        .map_err(|x| e(&x))?;
    let at = |i: usize, p: &RatioPoint| (i as f64 + 0.5, if p.ratio > 0.0 { p.ratio } else { lo });
    chart
        .draw_series(
            points
                .iter()
                .enumerate()
                .filter(|(_, p)| p.ratio > 0.0)
                .map(|(i, p)| Circle::new(at(i, p), 2, BLUE.filled())),
        )
        .map_err(|x| e(&x))?;
    chart
        .draw_series(
            points
                .iter()
                .enumerate()
                .filter(|(_, p)| p.ratio == 0.0)
                .map(|(i, p)| TriangleMarker::new(at(i, p), 4, RED.filled())),
        )
        .map_err(|x| e(&x))?;
    // The extremes, named: the lowest to the right of their point, the highest to the left,
    // each a line apart so that neighbours do not overprint.
    let low = points.iter().enumerate().take(LABELLED);
    let high = points
        .iter()
        .enumerate()
        .rev()
        .take(LABELLED.min(points.len().saturating_sub(LABELLED)));
    let style = |h: HPos, v: VPos| {
        TextStyle::from(("sans-serif", 10).into_font())
            .color(&RED)
            .pos(Pos::new(h, v))
    };
    for (rank, (i, p)) in low.enumerate().filter(|(_, (_, p))| p.ratio != 1.0) {
        let v = if rank == 0 { VPos::Bottom } else { VPos::Top };
        chart
            .draw_series([Text::new(
                format!(" {} {}", p.function, human(p.ratio)),
                at(i, p),
                style(HPos::Left, v),
            )])
            .map_err(|x| e(&x))?;
    }
    for (rank, (i, p)) in high.enumerate().filter(|(_, (_, p))| p.ratio != 1.0) {
        let v = if rank == 0 { VPos::Top } else { VPos::Bottom };
        chart
            .draw_series([Text::new(
                format!("{} {} ", p.function, human(p.ratio)),
                at(i, p),
                style(HPos::Right, v),
            )])
            .map_err(|x| e(&x))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spearman_of_monotone_and_reversed_series() {
        let x = [1.0, 2.0, 3.0, 10.0];
        assert_eq!(spearman(&x, &[5.0, 6.0, 7.0, 100.0]), Some(1.0));
        assert_eq!(spearman(&x, &[4.0, 3.0, 2.0, 1.0]), Some(-1.0));
        assert_eq!(spearman(&x, &[1.0, 1.0, 1.0, 1.0]), None);
        // Ties share their average rank: [1, 2.5, 2.5, 4].
        assert_eq!(ranks(&[0.0, 5.0, 5.0, 9.0]), [1.0, 2.5, 2.5, 4.0]);
    }

    #[test]
    fn axis_numbers_have_no_float_noise() {
        assert_eq!(human(0.30000000000000004), "0.30");
        assert_eq!(human(1.5), "1.5");
        assert_eq!(human(25000.0), "25k");
        assert_eq!(human(3_400_000.0), "3.4M");
        assert_eq!(human(0.0), "0");
    }
}
