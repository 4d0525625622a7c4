//! `chronolog-eval ... --plot FILE.svg`: evidence coverage against the
//! token budget, one line per configuration (the hybrid, each ablation,
//! each baseline), read off the evaluation's result. Readers take in the
//! shape (where a configuration saturates, which one a budget favours)
//! faster than from the table.

use std::path::Path;

use anyhow::{Context, Result, anyhow};
use plotters::prelude::*;
use serde_json::Value as Json;

/// One line: a configuration's coverage at each budget.
struct Series {
    name: String,
    points: Vec<(f64, f64)>,
}

/// The lines in `result` (the JSON `chronolog-eval --out` writes): every
/// configuration whose answerable questions have a coverage per budget.
fn series(result: &Json) -> Vec<Series> {
    result["configs"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|config| {
            let coverage = config["metrics"]["answerable"]["coverage"].as_object()?;
            let mut points: Vec<(f64, f64)> = coverage
                .iter()
                .filter_map(|(budget, share)| Some((budget.parse().ok()?, share.as_f64()?)))
                .collect();
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            Some(Series {
                name: config["name"].as_str()?.to_string(),
                points,
            })
        })
        .filter(|s| !s.points.is_empty())
        .collect()
}

/// Draws the coverage plot of `result` as an SVG file at `path`.
pub fn coverage(result: &Json, path: &Path) -> Result<()> {
    let lines = series(result);
    if lines.is_empty() {
        return Err(anyhow!("the result holds no coverage to plot"));
    }
    // Budgets are evenly spaced on the x axis (500, 1,000, 2,000, 4,000
    // double each time): the index of each, labelled with its value.
    let mut budgets: Vec<f64> = lines
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .collect();
    budgets.sort_by(f64::total_cmp);
    budgets.dedup();
    let at = |budget: f64| budgets.iter().position(|b| *b == budget).unwrap_or(0) as f64;
    let last = (budgets.len().max(2) - 1) as f64;
    let title = format!(
        "{}: evidence coverage by token budget ({})",
        result["dataset"].as_str().unwrap_or("evaluation"),
        result["embedder"].as_str().unwrap_or("?")
    );
    let draw =
        || -> Result<(), Box<dyn std::error::Error>> {
            let root = SVGBackend::new(path, (1040, 600)).into_drawing_area();
            root.fill(&WHITE)?;
            // The legend stands right of the plot, where no line can pass.
            let (plot_area, legend_area) = root.split_horizontally(780);
            let mut chart = ChartBuilder::on(&plot_area)
                .caption(title, ("sans-serif", 20))
                .margin(16)
                .x_label_area_size(44)
                .y_label_area_size(56)
                .build_cartesian_2d(-0.1..last + 0.1, 0.0..1.0)?;
            chart
                .configure_mesh()
                .x_desc("context budget (cl100k_base tokens)")
                .y_desc("answerable questions whose whole evidence is in the context")
                .x_labels(budgets.len())
                .x_label_formatter(&|x| {
                    let i = x.round();
                    match budgets.get(i as usize) {
                        Some(b) if (x - i).abs() < 0.01 => format!("{b:.0}"),
                        _ => String::new(),
                    }
                })
                .disable_x_mesh()
                .y_label_formatter(&|s| format!("{:.0}%", s * 100.0))
                .draw()?;
            for (i, line) in lines.iter().enumerate() {
                let colour = Palette99::pick(i).to_rgba();
                let style = ShapeStyle::from(colour).stroke_width(2);
                chart.draw_series(LineSeries::new(
                    line.points.iter().map(|&(b, c)| (at(b), c)),
                    style,
                ))?;
                chart.draw_series(line.points.iter().map(|&(b, c)| {
                    Circle::new((at(b), c), 3, ShapeStyle::from(colour).filled())
                }))?;
                let y = 70 + 24 * i as i32;
                legend_area.draw(&PathElement::new(vec![(8, y), (32, y)], style))?;
                legend_area.draw(&Text::new(
                    line.name.clone(),
                    (40, y - 7),
                    ("sans-serif", 14).into_font(),
                ))?;
            }
            root.present()?;
            Ok(())
        };
    draw()
        .map_err(|e| anyhow!("{e}"))
        .with_context(|| format!("cannot draw the plot to {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_configuration_is_a_line_in_the_svg() {
        let result = serde_json::json!({
            "dataset": "LoCoMo",
            "embedder": "hashing-384",
            "configs": [
                {"name": "hybrid", "metrics": {"answerable": {"coverage": {"500": 0.5, "1000": 0.6, "2000": 0.7, "4000": 0.75}}}},
                {"name": "bm25 only", "metrics": {"answerable": {"coverage": {"500": 0.4, "2000": 0.5}}}},
                {"name": "no coverage", "metrics": {"answerable": {}}},
            ],
        });
        let lines = series(&result);
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].points[0], (500.0, 0.5));
        assert_eq!(lines[1].points.len(), 2);
        let dir = tempfile::tempdir().expect("temp");
        let path = dir.path().join("coverage.svg");
        coverage(&result, &path).expect("plot");
        let svg = std::fs::read_to_string(&path).expect("read");
        assert!(svg.starts_with("<svg"), "{}", &svg[..80.min(svg.len())]);
        for name in ["hybrid", "bm25 only", "LoCoMo", "hashing-384"] {
            assert!(svg.contains(name), "{name} missing");
        }
        assert!(!svg.contains("no coverage"));
        // A dot per measured budget: 4 for the hybrid, 2 for bm25.
        assert_eq!(svg.matches("<circle").count(), 6);

        let empty = serde_json::json!({"configs": []});
        assert!(coverage(&empty, &dir.path().join("empty.svg")).is_err());
    }
}
