//! Line charts as standalone SVG (what a browser opens): axes with round
//! tick values, one polyline per series, dashed horizontal guides, a legend.

use std::fmt::Write;

const WIDTH: f64 = 900.0;
const HEIGHT: f64 = 420.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 180.0;
const TOP: f64 = 36.0;
const BOTTOM: f64 = 48.0;
/// Points kept per series: plenty for 720 px of plot.
const MAX_POINTS: usize = 1500;
/// Points kept per chart, shared by its series (down to [`MIN_POINTS`]
/// each), so that a chart of 64 busy lines stays a file a browser opens.
const CHART_POINTS: usize = 24_000;
const MIN_POINTS: usize = 200;
/// Beyond this many series the legend names only the count.
const LEGEND_MAX: usize = 16;
const PALETTE: [&str; 10] =
    ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];

pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

pub struct Chart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub series: Vec<Series>,
    /// Dashed horizontal lines: (label, y).
    pub guides: Vec<(String, f64)>,
}

/// Round tick values covering [lo, hi]: steps of 1, 2 or 5 times a power of 10.
fn ticks(lo: f64, hi: f64) -> Vec<f64> {
    let span = (hi - lo).max(f64::MIN_POSITIVE);
    let raw = span / 6.0;
    let power = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * power).find(|s| *s >= raw).unwrap_or(10.0 * power);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last).map(|i| i as f64 * step).collect()
}

fn label(v: f64) -> String {
    if v == 0.0 || (v.abs() >= 0.01 && v.abs() < 1e6) {
        let s = format!("{v:.3}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        format!("{v:.1e}")
    }
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

impl Chart {
    pub fn svg(&self) -> String {
        let all = self.series.iter().flat_map(|s| s.points.iter());
        let (mut x_hi, mut y_hi) = (0f64, 0f64);
        let mut x_lo = f64::INFINITY;
        for &(x, y) in all {
            x_lo = x_lo.min(x);
            x_hi = x_hi.max(x);
            y_hi = y_hi.max(y);
        }
        for (_, y) in &self.guides {
            y_hi = y_hi.max(*y);
        }
        if !x_lo.is_finite() {
            x_lo = 0.0;
        }
        if x_hi <= x_lo {
            x_hi = x_lo + 1.0;
        }
        let y_hi = if y_hi > 0.0 { y_hi * 1.05 } else { 1.0 };
        let (plot_w, plot_h) = (WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM);
        let px = |x: f64| LEFT + (x - x_lo) / (x_hi - x_lo) * plot_w;
        let py = |y: f64| TOP + plot_h - y / y_hi * plot_h;

        let mut s = String::new();
        let _ = writeln!(
            s,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">"#
        );
        let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
        let _ = writeln!(
            s,
            r#"<text x="{}" y="22" text-anchor="middle" font-size="15">{}</text>"#,
            LEFT + plot_w / 2.0,
            escape(&self.title)
        );
        for x in ticks(x_lo, x_hi) {
            let _ = writeln!(
                s,
                r##"<line x1="{0:.1}" y1="{1}" x2="{0:.1}" y2="{2}" stroke="#e0e0e0"/><text x="{0:.1}" y="{3}" text-anchor="middle">{4}</text>"##,
                px(x),
                TOP,
                TOP + plot_h,
                TOP + plot_h + 16.0,
                label(x)
            );
        }
        for y in ticks(0.0, y_hi) {
            let _ = writeln!(
                s,
                r##"<line x1="{0}" y1="{1:.1}" x2="{2}" y2="{1:.1}" stroke="#e0e0e0"/><text x="{3}" y="{4:.1}" text-anchor="end">{5}</text>"##,
                LEFT,
                py(y),
                LEFT + plot_w,
                LEFT - 6.0,
                py(y) + 4.0,
                label(y)
            );
        }
        let _ = writeln!(
            s,
            r##"<rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}" fill="none" stroke="#333"/>"##
        );
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#,
            LEFT + plot_w / 2.0,
            HEIGHT - 10.0,
            escape(&self.x_label)
        );
        let _ = writeln!(
            s,
            r#"<text x="16" y="{0}" text-anchor="middle" transform="rotate(-90 16 {0})">{1}</text>"#,
            TOP + plot_h / 2.0,
            escape(&self.y_label)
        );
        for (name, y) in &self.guides {
            let _ = writeln!(
                s,
                r##"<line x1="{LEFT}" y1="{0:.1}" x2="{1}" y2="{0:.1}" stroke="#555" stroke-dasharray="5,4"/><text x="{2}" y="{3:.1}" fill="#555">{4}</text>"##,
                py(*y),
                LEFT + plot_w,
                LEFT + plot_w + 6.0,
                py(*y) + 4.0,
                escape(name)
            );
        }
        for (i, series) in self.series.iter().enumerate() {
            let color = PALETTE[i % PALETTE.len()];
            let budget = (CHART_POINTS / self.series.len()).clamp(MIN_POINTS, MAX_POINTS);
            let step = series.points.len().div_ceil(budget).max(1);
            let mut path = String::new();
            for (k, &(x, y)) in series.points.iter().enumerate() {
                if k % step == 0 || k + 1 == series.points.len() {
                    let _ = write!(path, "{:.1},{:.1} ", px(x), py(y));
                }
            }
            let _ = writeln!(
                s,
                r#"<polyline fill="none" stroke="{color}" stroke-width="1.2" points="{}"><title>{}</title></polyline>"#,
                path.trim_end(),
                escape(&series.name)
            );
        }
        let legend_x = LEFT + plot_w + 10.0;
        if self.series.len() <= LEGEND_MAX {
            for (i, series) in self.series.iter().enumerate() {
                let y = TOP + 60.0 + i as f64 * 16.0;
                let color = PALETTE[i % PALETTE.len()];
                let _ = writeln!(
                    s,
                    r#"<line x1="{legend_x}" y1="{0}" x2="{1}" y2="{0}" stroke="{color}" stroke-width="2"/><text x="{2}" y="{3}">{4}</text>"#,
                    y,
                    legend_x + 18.0,
                    legend_x + 22.0,
                    y + 4.0,
                    escape(&series.name)
                );
            }
        } else {
            let _ = writeln!(
                s,
                r#"<text x="{legend_x}" y="{}">{} series (hover a line)</text>"#,
                TOP + 64.0,
                self.series.len()
            );
        }
        s.push_str("</svg>\n");
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_and_cover_the_range() {
        assert_eq!(ticks(0.0, 100.0), vec![0.0, 20.0, 40.0, 60.0, 80.0, 100.0]);
        assert_eq!(ticks(0.0, 7.0), vec![0.0, 2.0, 4.0, 6.0]);
        assert_eq!(label(0.5), "0.5");
        assert_eq!(label(1200.0), "1200");
    }

    #[test]
    fn a_chart_draws_every_series_and_guide() {
        let chart = Chart {
            title: "t <1>".into(),
            x_label: "x".into(),
            y_label: "y".into(),
            series: vec![Series { name: "a".into(), points: vec![(0.0, 1.0), (1.0, 2.0)] }],
            guides: vec![("Kmax".into(), 3.0)],
        };
        let svg = chart.svg();
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert_eq!(svg.matches("<polyline").count(), 1);
        assert!(svg.contains("Kmax") && svg.contains("t &lt;1&gt;"));
    }
}
