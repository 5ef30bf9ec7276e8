//! The human-readable answer: an aligned table and a short statistics block.

use std::io::{self, Write};

use horizon_core::{Answer, QueryParams};

pub fn write(out: &mut impl Write, params: &QueryParams, answer: &Answer) -> io::Result<()> {
    let c = params.contact;
    let s = &answer.stats;
    writeln!(
        out,
        "{} pairs within [{}, {}] (margin {}) among {} objects, {} in {:.4} s",
        answer.pairs.len(),
        c.at,
        c.at + c.horizon,
        c.margin,
        s.objects,
        params.algorithm,
        s.query_seconds
    )?;
    let header = [
        "a",
        "b",
        "t_contact",
        "t_separation",
        "min_distance",
        "t_min_distance",
    ];
    let rows: Vec<[String; 6]> = answer
        .pairs
        .iter()
        .map(|p| {
            let k = p.contact;
            [
                p.a.clone(),
                p.b.clone(),
                format!("{:.6}", k.t_contact),
                format!("{:.6}", k.t_separation),
                format!("{:.6}", k.min_distance),
                format!("{:.6}", k.t_min_distance),
            ]
        })
        .collect();
    if !rows.is_empty() {
        let mut width = header.map(str::len);
        for r in &rows {
            for (w, cell) in width.iter_mut().zip(r) {
                *w = (*w).max(cell.chars().count());
            }
        }
        let line = |cells: [&str; 6]| {
            let mut l = String::new();
            for (j, cell) in cells.iter().enumerate() {
                if j < 2 {
                    l += &format!("{cell:<w$}  ", w = width[j]);
                } else {
                    l += &format!("{cell:>w$}  ", w = width[j]);
                }
            }
            l.trim_end().to_string()
        };
        writeln!(out)?;
        writeln!(out, "{}", line(header))?;
        for r in &rows {
            writeln!(out, "{}", line(r.each_ref().map(String::as_str)))?;
        }
    }
    writeln!(out)?;
    if let (Some(size), Some(used)) = (s.cell_size, s.cells_used) {
        writeln!(
            out,
            "grid: cells {:.3} x {:.3} x {:.3}, {} used, {} large objects",
            size[0],
            size[1],
            size[2],
            used,
            s.large_objects.unwrap_or(0)
        )?;
    }
    let pp = s.prune_power;
    writeln!(
        out,
        "candidates {}  pruned by projection {} ({:.1}%)  by time interval {} ({:.1}%)  exact solves {}  found {}",
        s.candidate_pairs,
        s.pruned_projection,
        pp.projection,
        s.pruned_time_interval,
        pp.time_interval,
        s.exact_solves,
        s.pairs_found
    )?;
    let ph = s.phase_seconds;
    writeln!(
        out,
        "seconds: prepare {:.4}  index {:.4}  join {:.4}  finish {:.4}",
        ph.prepare, ph.index, ph.join, ph.finish
    )
}
