//! SVG plots (plotters, SVG backend only) of per-function copies, in the style of Brandner &
//! Colombet (2011), Figures 11–17: for each target and each configuration after the first,
//! every kernel's count (static `moves_final`, dynamic `dyn_moves`) divided by the first
//! configuration's, one point per function, sorted ascending by that ratio. Linear y axis;
//! 1.0 (drawn as a line) means "as many copies as the first configuration", lower is better.
//! A kernel with 0 copies under the first configuration has no ratio and is not plotted (the
//! README counts them, and how many of them gain copies).
//!
//! With a single configuration there is nothing to compare, so the plot shows each kernel's
//! absolute `moves_final`, sorted ascending.
//!
//! Determinism: points are sorted by (value, program, function); plotters' SVG output is a
//! pure function of its input, so equal data gives byte-identical files.
//!
//! Complexity: O(k log k) for k kernels per plot.

use super::data::{Dataset, Metric, TargetSelection};
use plotters::prelude::*;

/// What a relative plot showed, for the README.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RatioSummary {
    /// Kernels plotted (first configuration's count > 0).
    pub plotted: usize,
    pub below: usize,
    pub equal: usize,
    pub above: usize,
    /// Kernels with 0 under the first configuration (not plotted) …
    pub zero_base: usize,
    /// … of which this many have copies under the compared configuration.
    pub zero_base_gained: usize,
    /// Median ratio of the plotted kernels.
    pub median: Option<f64>,
}

/// Ratios `value / first` of one metric for one compared configuration, sorted ascending
/// (ties by program, function), plus the summary.
pub fn ratios(
    ds: &Dataset,
    sel: &TargetSelection,
    metric: Metric,
    config: usize,
) -> (Vec<f64>, RatioSummary) {
    let mut points: Vec<(f64, &(String, String))> = Vec::new();
    let mut sum = RatioSummary::default();
    for (key, (_, rows)) in &sel.kernels {
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
        points.push((value as f64 / base as f64, key));
    }
    points.sort_by(|a, b| a.0.total_cmp(&b.0).then_with(|| a.1.cmp(b.1)));
    sum.plotted = points.len();
    sum.median = (!points.is_empty()).then(|| points[points.len() / 2].0);
    (points.into_iter().map(|p| p.0).collect(), sum)
}

/// Absolute values of one metric under the first configuration, sorted ascending.
pub fn sorted_values(ds: &Dataset, sel: &TargetSelection, metric: Metric) -> Vec<f64> {
    let mut v: Vec<(u64, &(String, String))> = sel
        .kernels
        .iter()
        .map(|(key, (_, rows))| (metric.value(&ds.rows[rows[0]]), key))
        .collect();
    v.sort();
    v.into_iter().map(|p| p.0 as f64).collect()
}

/// A sorted-series plot.
pub struct Plot<'a> {
    pub title: &'a str,
    pub y_desc: &'a str,
    /// The series' legend label and its values (x = rank).
    pub label: &'a str,
    pub values: &'a [f64],
    /// A horizontal reference line (1.0 for ratios) and its legend label.
    pub reference: Option<(f64, &'a str)>,
}

const SIZE: (u32, u32) = (900, 540);

/// Renders `plot` as an SVG document.
pub fn render_svg(plot: &Plot) -> Result<String, String> {
    let err = |e: &dyn std::fmt::Display| format!("plot `{}`: {e}", plot.title);
    let n = plot.values.len();
    let x_max = n.max(1) as f64;
    let data_max = plot.values.iter().copied().fold(0.0f64, f64::max);
    let ref_max = plot.reference.map_or(0.0, |r| r.0);
    let y_max = (data_max.max(ref_max) * 1.05).max(1.0);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(&e))?;
        let mut chart = ChartBuilder::on(&root)
            .caption(plot.title, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(0.0..x_max, 0.0..y_max)
            .map_err(|e| err(&e))?;
        chart
            .configure_mesh()
            .x_desc(format!("kernels, sorted ascending ({n})"))
            .y_desc(plot.y_desc)
            .draw()
            .map_err(|e| err(&e))?;
        let points: Vec<(f64, f64)> = plot
            .values
            .iter()
            .enumerate()
            .map(|(i, &v)| (i as f64 + 0.5, v))
            .collect();
        chart
            .draw_series(LineSeries::new(points.iter().copied(), BLUE))
            .map_err(|e| err(&e))?
            .label(plot.label)
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLUE));
        chart
            .draw_series(points.iter().map(|&p| Circle::new(p, 2, BLUE.filled())))
            .map_err(|e| err(&e))?;
        if let Some((level, label)) = plot.reference {
            chart
                .draw_series(LineSeries::new([(0.0, level), (x_max, level)], BLACK))
                .map_err(|e| err(&e))?
                .label(label)
                .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLACK));
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
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_and_flat_series_render() {
        for values in [&[][..], &[0.0, 0.0][..], &[1.0][..]] {
            let svg = render_svg(&Plot {
                title: "t",
                y_desc: "y",
                label: "series-x",
                values,
                reference: Some((1.0, "ref")),
            })
            .unwrap();
            assert!(svg.starts_with("<svg") && svg.contains("series-x"), "{svg}");
        }
    }
}
