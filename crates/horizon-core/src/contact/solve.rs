//! The exact pair solver.
//!
//! With `c(τ)` the relative centre offset (a quadratic per axis), `W` the summed box
//! half-extents and `R` the summed radii plus margin, the pair is in contact at τ iff
//! `D(τ) = dist(c(τ), [−W, W]) ≤ R` (DESIGN.md "The collision query").
//!
//! `D²` is piecewise polynomial: it changes form only where some `c_j(τ) = ±W_j`. Inside a
//! piece each axis contributes `(c_j ∓ W_j)²` or nothing, so `D²` is a quartic (a quadratic
//! for linear motion). The solver splits the window at those breakpoints (closed-form
//! quadratics from `roots`) and at every critical point of each piece, found by isolating
//! the roots of `dD²/dτ` between the roots of its own derivative. `D²` is then monotone
//! between consecutive points, so the minimum is at one of them and every threshold
//! crossing is bracketed: no root can be dropped.

use arrayvec::ArrayVec;

use super::bracket::boundary;
use super::interval::{Intervals, Quad, intersect, slab};
use crate::motion::{Body, TOL_REL};

/// A contact found by the solver, in query-relative time τ ∈ [0, h].
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Contact {
    pub t_contact: f64,
    pub t_separation: f64,
    pub min_distance: f64,
    pub t_min_distance: f64,
}

/// Everything about one ordered pair that the filters and the solver need.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PairKin {
    /// Relative centre offset, b − a, per axis.
    c: [Quad; 3],
    /// Summed box half-extents.
    w: [f64; 3],
    /// Summed radii (the shapes' own round part).
    r0: f64,
    /// Contact distance: `r0 + margin`.
    r: f64,
    /// Roundoff allowance for this pair.
    tol: f64,
}

impl PairKin {
    pub fn new(a: &Body, b: &Body, margin: f64) -> PairKin {
        let c = std::array::from_fn(|j| Quad {
            c0: b.p[j] - a.p[j],
            c1: b.v[j] - a.v[j],
            c2: 0.5 * (b.a[j] - a.a[j]),
        });
        let r0 = a.r + b.r;
        PairKin {
            c,
            w: std::array::from_fn(|j| a.w[j] + b.w[j]),
            r0,
            r: r0 + margin,
            tol: TOL_REL * a.scale.max(b.scale).max(margin),
        }
    }

    /// `D(τ)²`: squared distance from the offset to the box `[−W, W]`.
    #[inline]
    fn gap2(&self, t: f64) -> f64 {
        let mut s = 0.0;
        for j in 0..3 {
            let e = (self.c[j].at(t).abs() - self.w[j]).max(0.0);
            s += e * e;
        }
        s
    }

    /// Gap between the two shapes at τ (0 when they overlap).
    pub fn gap(&self, t: f64) -> f64 {
        (self.gap2(t).sqrt() - self.r0).max(0.0)
    }

    /// The time-interval test: the hull of the times in [0, h] at which every axis is within
    /// `W + R` (plus slack). `None` proves the pair cannot touch.
    pub fn window(&self, h: f64) -> Option<(f64, f64)> {
        let slack = self.r + 2.0 * self.tol;
        let set = self.axes_within(|j| self.w[j] + slack, 0.0, h)?;
        Some((set[0].0, set[set.len() - 1].1))
    }

    fn axes_within(&self, k: impl Fn(usize) -> f64, lo: f64, hi: f64) -> Option<Intervals> {
        let mut set = slab(&self.c[0], k(0), lo, hi);
        for j in 1..3 {
            if set.is_empty() {
                return None;
            }
            // Later axes only matter inside the hull of what is left.
            let (l, h) = (set[0].0, set[set.len() - 1].1);
            set = intersect(&set, &slab(&self.c[j], k(j), l, h));
        }
        (!set.is_empty()).then_some(set)
    }

    /// Exact contact within `window` (from [`Self::window`]), or `None`.
    pub fn solve(&self, window: (f64, f64)) -> Option<Contact> {
        let (lo, hi) = window;
        if self.r == 0.0 {
            // Boxes and points without margin touch exactly while every axis overlaps: the
            // per-axis intervals are the whole answer.
            if let Some(set) = self.axes_within(|j| self.w[j], lo, hi) {
                let (s, e) = set[0];
                return Some(Contact {
                    t_contact: s,
                    t_separation: e,
                    min_distance: 0.0,
                    t_min_distance: s,
                });
            }
            // Only an isolated touching instant can remain: the profile below sees it.
        }
        let prof = Profile::build(self, lo, hi);
        let (min2, t_min) = prof.minimum();
        let reach = self.r + self.tol;
        if min2 > reach * reach {
            return None;
        }
        let r2 = self.r * self.r;
        let (t_contact, t_separation) = match prof.entry(self, r2) {
            Some((seg, e)) => (e, prof.exit(self, r2, seg, e).unwrap_or(hi)),
            // Within roundoff of touching (a graze): report the instant of closest approach.
            None => (t_min, t_min),
        };
        let r02 = self.r0 * self.r0;
        let (min_distance, t_min_distance) = if min2 <= r02 {
            (0.0, prof.entry(self, r02).map_or(t_min, |(_, e)| e))
        } else {
            (min2.sqrt() - self.r0, t_min)
        };
        Some(Contact {
            t_contact,
            t_separation,
            min_distance,
            t_min_distance,
        })
    }
}

/// Points splitting the window into pieces on which `D²` is monotone, with `D²` at each.
struct Profile {
    pts: ArrayVec<f64, 64>,
    vals: ArrayVec<f64, 64>,
}

impl Profile {
    fn build(k: &PairKin, lo: f64, hi: f64) -> Profile {
        let mut bps = ArrayVec::<f64, 16>::new();
        bps.push(lo);
        for j in 0..3 {
            if k.w[j] > 0.0 {
                k.c[j].crossings(k.w[j], lo, hi, &mut bps);
                k.c[j].crossings(-k.w[j], lo, hi, &mut bps);
            }
        }
        bps.push(hi);
        bps.sort_unstable_by(f64::total_cmp);
        let mut pts = ArrayVec::<f64, 64>::new();
        for w in bps.windows(2) {
            let (u, v) = (w[0], w[1]);
            if v <= u {
                continue;
            }
            pts.push(u);
            critical_points(k, u, v, &mut pts);
        }
        pts.push(hi);
        let vals = pts.iter().map(|&t| k.gap2(t)).collect();
        Profile { pts, vals }
    }

    /// Smallest `D²` and the first point reaching it.
    fn minimum(&self) -> (f64, f64) {
        let mut best = (self.vals[0], self.pts[0]);
        for (&v, &t) in self.vals.iter().zip(&self.pts) {
            if v < best.0 {
                best = (v, t);
            }
        }
        best
    }

    /// First τ with `D² ≤ level`, and the index of the segment it lies in.
    fn entry(&self, k: &PairKin, level: f64) -> Option<(usize, f64)> {
        if self.vals[0] <= level {
            return Some((0, self.pts[0]));
        }
        for i in 0..self.pts.len() - 1 {
            if self.vals[i + 1] <= level {
                let t = boundary(|t| k.gap2(t) - level, self.pts[i + 1], self.pts[i]);
                return Some((i, t));
            }
        }
        None
    }

    /// Last τ of the contact interval that starts at `start` in segment `seg`; `None` if it
    /// lasts to the end of the window.
    fn exit(&self, k: &PairKin, level: f64, seg: usize, start: f64) -> Option<f64> {
        for i in seg..self.pts.len() - 1 {
            if self.vals[i + 1] > level {
                let from = if i == seg { start } else { self.pts[i] };
                return Some(boundary(|t| k.gap2(t) - level, from, self.pts[i + 1]));
            }
        }
        None
    }
}

/// Appends the critical points of `D²` strictly inside the piece (u, v), in order.
fn critical_points(k: &PairKin, u: f64, v: f64, out: &mut ArrayVec<f64, 64>) {
    // The active terms of this piece: axis j contributes (c_j − s_j)² with s_j = ±W_j.
    let mid = 0.5 * (u + v);
    let mut terms = ArrayVec::<Quad, 3>::new();
    for j in 0..3 {
        let q = k.c[j];
        let s = if k.w[j] == 0.0 {
            0.0
        } else {
            let x = q.at(mid);
            if x > k.w[j] {
                k.w[j]
            } else if x < -k.w[j] {
                -k.w[j]
            } else {
                continue;
            }
        };
        terms.push(Quad { c0: q.c0 - s, ..q });
    }
    if terms.is_empty() {
        return; // D² ≡ 0 on this piece
    }
    // dD²/dτ = Σ 2·e(τ)·e'(τ) with e = c − s.
    let d1 = |t: f64| -> f64 {
        terms
            .iter()
            .map(|q| 2.0 * q.at(t) * (q.c1 + 2.0 * q.c2 * t))
            .sum()
    };
    if terms.iter().all(|q| q.c2 == 0.0) {
        // Linear motion: D² is a quadratic, one vertex.
        let (a, b): (f64, f64) = terms
            .iter()
            .fold((0.0, 0.0), |(a, b), q| (a + q.c1 * q.c1, b + q.c0 * q.c1));
        if a > 0.0 {
            let t = -b / a;
            if t > u && t < v {
                out.push(t);
            }
        }
        return;
    }
    // Quartic: split at the roots of d²D²/dτ² (a quadratic), where dD²/dτ is monotone, and
    // take the one sign change of dD²/dτ in each part.
    let (mut a2, mut a1, mut a0) = (0.0, 0.0, 0.0);
    for q in &terms {
        a2 += 12.0 * q.c2 * q.c2;
        a1 += 12.0 * q.c1 * q.c2;
        a0 += 2.0 * (q.c1 * q.c1 + 2.0 * q.c2 * q.c0);
    }
    let mut splits = ArrayVec::<f64, 4>::new();
    splits.push(u);
    for &r in roots::find_roots_quadratic(a2, a1, a0).as_ref() {
        if r > u && r < v {
            splits.push(r);
        }
    }
    splits.push(v);
    splits.sort_unstable_by(f64::total_cmp);
    for w in splits.windows(2) {
        let (x, y) = (w[0], w[1]);
        let (dx, dy) = (d1(x), d1(y));
        if dx == 0.0 && x > u {
            out.push(x);
        } else if dx < 0.0 && dy > 0.0 {
            out.push(boundary(|t| -d1(t), y, x).max(x));
        } else if dx > 0.0 && dy < 0.0 {
            out.push(boundary(d1, y, x).max(x));
        }
    }
}
