//! Time intervals where one axis of the relative motion stays inside a slab `|c(τ)| ≤ k`.
//!
//! This is GPCD's time-interval test (paper §3.4, eq. 4) in closed form: on each axis the
//! pair can only touch while the centre offset is within the summed extents, and those
//! per-axis time sets must intersect.

use arrayvec::ArrayVec;

/// Sorted, disjoint, closed sub-intervals of the query window.
pub(crate) type Intervals = ArrayVec<(f64, f64), 8>;

/// One axis of the relative centre offset: `c(τ) = c0 + c1·τ + c2·τ²`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Quad {
    pub c0: f64,
    pub c1: f64,
    pub c2: f64,
}

impl Quad {
    #[inline]
    pub fn at(&self, t: f64) -> f64 {
        self.c0 + t * (self.c1 + t * self.c2)
    }

    /// Real roots of `c(τ) = level` strictly inside (lo, hi), appended to `out`.
    pub fn crossings<const N: usize>(
        &self,
        level: f64,
        lo: f64,
        hi: f64,
        out: &mut ArrayVec<f64, N>,
    ) {
        if self.c2 == 0.0 && self.c1 == 0.0 {
            return; // constant: never crosses (or always equal, which changes nothing)
        }
        let roots = roots::find_roots_quadratic(self.c2, self.c1, self.c0 - level);
        for &r in roots.as_ref() {
            if r > lo && r < hi {
                out.push(r);
            }
        }
    }
}

/// `{τ ∈ [lo, hi] : |c(τ)| ≤ k}`.
///
/// Roots only split the window; membership of each piece is decided by evaluating `c` at its
/// midpoint, so a root that is off by an ulp cannot flip the answer for a whole piece.
pub(crate) fn slab(q: &Quad, k: f64, lo: f64, hi: f64) -> Intervals {
    let mut out = Intervals::new();
    if q.c1 == 0.0 && q.c2 == 0.0 {
        if q.c0.abs() <= k {
            out.push((lo, hi));
        }
        return out;
    }
    let mut pts = ArrayVec::<f64, 6>::new();
    pts.push(lo);
    q.crossings(k, lo, hi, &mut pts);
    q.crossings(-k, lo, hi, &mut pts);
    pts.push(hi);
    pts.sort_unstable_by(f64::total_cmp);
    if lo == hi {
        if q.at(lo).abs() <= k {
            out.push((lo, hi));
        }
        return out;
    }
    for w in pts.windows(2) {
        let (u, v) = (w[0], w[1]);
        if v <= u || q.at(0.5 * (u + v)).abs() > k {
            continue;
        }
        match out.last_mut() {
            Some(last) if last.1 == u => last.1 = v,
            _ => out.push((u, v)),
        }
    }
    out
}

/// Intersection of two interval sets (both sorted and disjoint).
pub(crate) fn intersect(a: &Intervals, b: &Intervals) -> Intervals {
    let mut out = Intervals::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let lo = a[i].0.max(b[j].0);
        let hi = a[i].1.min(b[j].1);
        if lo <= hi && !out.is_full() {
            out.push((lo, hi));
        }
        if a[i].1 < b[j].1 {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn linear_slab() {
        // c = -10 + 2τ, |c| ≤ 1 for τ ∈ [4.5, 5.5]
        let q = Quad {
            c0: -10.0,
            c1: 2.0,
            c2: 0.0,
        };
        assert_eq!(slab(&q, 1.0, 0.0, 10.0).as_slice(), &[(4.5, 5.5)]);
        assert_eq!(slab(&q, 1.0, 0.0, 5.0).as_slice(), &[(4.5, 5.0)]);
        assert!(slab(&q, 1.0, 0.0, 4.0).is_empty());
        // An isolated touching instant is not an interval: callers pad `k` (the filter) or
        // fall back to the exact profile (the solver), which does see it.
        assert!(slab(&q, 1.0, 0.0, 4.5).is_empty());
        assert_eq!(slab(&q, 1.0 + 1e-9, 0.0, 4.5).len(), 1);
    }

    #[test]
    fn quadratic_slab_can_be_two_intervals() {
        // c = τ² − 4τ + 3 = (τ−2)² − 1, min −1 at τ = 2. |c| ≤ 0.5 where
        // 0.5 ≤ (τ−2)² ≤ 1.5: twice.
        let q = Quad {
            c0: 3.0,
            c1: -4.0,
            c2: 1.0,
        };
        let s = slab(&q, 0.5, 0.0, 4.0);
        assert_eq!(s.len(), 2);
        let r = |x: f64| (x - 2.0f64).abs();
        assert!((r(s[0].0) - 1.5f64.sqrt()).abs() < 1e-12);
        assert!((r(s[0].1) - 0.5f64.sqrt()).abs() < 1e-12);
        let both = intersect(
            &s,
            &slab(
                &Quad {
                    c0: 0.0,
                    c1: 0.0,
                    c2: 0.0,
                },
                1.0,
                0.0,
                4.0,
            ),
        );
        assert_eq!(both, s);
    }

    #[test]
    fn intersect_interleaved() {
        let a: Intervals = [(0.0, 1.0), (2.0, 3.0)].into_iter().collect();
        let b: Intervals = [(0.5, 2.5)].into_iter().collect();
        assert_eq!(intersect(&a, &b).as_slice(), &[(0.5, 1.0), (2.0, 2.5)]);
    }
}
