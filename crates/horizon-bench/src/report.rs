//! Tables: Markdown for people, CSV for tools.

use std::fmt::Write;

use horizon_core::Algorithm;

use crate::run::Measurement;

fn find<'a>(
    ms: &'a [Measurement],
    sweep: &str,
    label: &str,
    a: Algorithm,
) -> Option<&'a Measurement> {
    ms.iter()
        .find(|m| m.sweep == sweep && m.label == label && m.algorithm == a)
}

/// One table per sweep, one row per point, algorithms side by side.
pub fn markdown(ms: &[Measurement], runs: usize) -> String {
    let mut out = String::new();
    let mut sweeps: Vec<(&str, &str)> = Vec::new();
    for m in ms {
        if !sweeps.iter().any(|(s, _)| *s == m.sweep) {
            sweeps.push((m.sweep, m.parameter));
        }
    }
    let _ = writeln!(
        out,
        "Query seconds are the median of {runs} runs (engine time, `query_seconds`). Every point \
         checked that all algorithms returned identical answers.\n"
    );
    for (sweep, parameter) in sweeps {
        let _ = writeln!(out, "### {parameter}\n");
        let _ = writeln!(
            out,
            "| {parameter} | n | h | grid s | rtree s | brute s | rtree / grid | pairs | grid candidates | projection prune % | time-interval prune % | grid working memory, B/object |"
        );
        let _ = writeln!(out, "|---|---|---|---|---|---|---|---|---|---|---|---|");
        let mut labels: Vec<&str> = Vec::new();
        for m in ms.iter().filter(|m| m.sweep == sweep) {
            if !labels.contains(&m.label.as_str()) {
                labels.push(&m.label);
            }
        }
        for label in labels {
            let g = find(ms, sweep, label, Algorithm::Grid);
            let r = find(ms, sweep, label, Algorithm::Rtree);
            let b = find(ms, sweep, label, Algorithm::Brute);
            let secs =
                |m: Option<&Measurement>| m.map_or("—".into(), |m| format!("{:.5}", m.median()));
            let Some(g) = g else { continue };
            let ratio = r.map_or("—".into(), |r| format!("{:.1}×", r.median() / g.median()));
            let _ = writeln!(
                out,
                "| {label} | {} | {} | {} | {} | {} | {ratio} | {} | {} | {:.1} | {:.1} | {} |",
                g.n,
                g.horizon,
                secs(Some(g)),
                secs(r),
                secs(b),
                g.pairs,
                g.stats.candidate_pairs,
                g.stats.prune_power.projection,
                g.stats.prune_power.time_interval,
                g.stats.working_bytes.map_or("—".into(), |b| format!(
                    "{:.0}",
                    b as f64 / g.n.max(1) as f64
                )),
            );
        }
        out.push('\n');
    }
    out
}

/// Long format: one row per (point, algorithm).
pub fn csv(ms: &[Measurement]) -> String {
    let mut out = String::from(
        "sweep,x,label,n,horizon,cell_scale,algorithm,runs,median_seconds,min_seconds,pairs,\
         candidate_pairs,pruned_projection,pruned_time_interval,exact_solves,\
         prune_projection_pct,prune_time_interval_pct,cells_used,grid_entries,working_bytes,peak_rss_growth_bytes,\
         prepare_seconds,index_seconds,join_seconds,finish_seconds\n",
    );
    for m in ms {
        let s = &m.stats;
        let min = m.seconds.iter().copied().fold(f64::INFINITY, f64::min);
        let opt = |x: Option<u64>| x.map_or(String::new(), |v| v.to_string());
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{:.6},{:.6},{},{},{},{},{},{:.3},{:.3},{},{},{},{},{:.6},{:.6},{:.6},{:.6}",
            m.sweep,
            m.x,
            m.label,
            m.n,
            m.horizon,
            m.cell_scale,
            m.algorithm,
            m.seconds.len(),
            m.median(),
            min,
            m.pairs,
            s.candidate_pairs,
            s.pruned_projection,
            s.pruned_time_interval,
            s.exact_solves,
            s.prune_power.projection,
            s.prune_power.time_interval,
            opt(s.cells_used),
            opt(s.grid_entries),
            opt(s.working_bytes),
            opt(m.peak_extra_bytes),
            s.phase_seconds.prepare,
            s.phase_seconds.index,
            s.phase_seconds.join,
            s.phase_seconds.finish,
        );
    }
    out
}
