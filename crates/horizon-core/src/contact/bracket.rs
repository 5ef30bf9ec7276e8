//! Root finding on a bracket where the function is known to be monotone.
//!
//! Closed-form cubic and quartic solvers can drop real roots (vorot/roots#23), and a dropped
//! root is a missed collision. So the solver only ever asks this module for the single
//! crossing inside an interval whose end values already bracket it: the answer cannot be
//! lost, only located to within an ulp or so.

/// The boundary of `{τ : g(τ) ≤ 0}` between `inside` (g ≤ 0) and `outside` (g > 0).
///
/// Returns a point on the inside, within a few ulps of the boundary. Illinois-modified
/// regula falsi, with a bisection step every third iteration so the bracket always shrinks.
pub(crate) fn boundary(g: impl Fn(f64) -> f64, mut inside: f64, mut outside: f64) -> f64 {
    let mut gi = g(inside);
    let mut go = g(outside);
    debug_assert!(gi <= 0.0 && go > 0.0);
    let mut last_side = 0i8;
    for iter in 0..200 {
        let (a, b) = (inside.min(outside), inside.max(outside));
        let mid = 0.5 * (a + b);
        if mid <= a || mid >= b {
            break; // adjacent floats
        }
        let mut x = inside - gi * (outside - inside) / (go - gi);
        if iter % 3 == 2 || !(x > a && x < b) {
            x = mid;
        }
        let gx = g(x);
        if gx <= 0.0 {
            inside = x;
            gi = gx;
            if last_side == -1 {
                go *= 0.5;
            }
            last_side = -1;
        } else {
            outside = x;
            go = gx;
            if last_side == 1 {
                gi *= 0.5;
            }
            last_side = 1;
        }
    }
    inside
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn finds_boundaries_from_either_side() {
        let r = boundary(|t| t * t - 2.0, 0.0, 2.0);
        assert!((r - 2f64.sqrt()).abs() < 1e-15 && r * r - 2.0 <= 0.0);
        let r = boundary(|t| 2.0 - t * t, 2.0, 0.0);
        assert!((r - 2f64.sqrt()).abs() < 1e-15 && 2.0 - r * r <= 0.0);
        // A very flat crossing still converges (bisection steps).
        let r = boundary(|t| (t - 1.0).powi(5), 0.0, 3.0);
        assert!((r - 1.0).abs() < 1e-9);
    }
}
