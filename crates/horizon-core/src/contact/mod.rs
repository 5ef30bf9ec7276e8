//! The exact contact solver for one pair of moving shapes.
//!
//! Contact rule (DESIGN.md): with every state propagated to `T`, the pair touches at
//! `T + τ` iff `dist(c(τ), [−W, W]) ≤ R`, where `c` is the centre offset, `W` the summed box
//! half-extents and `R` the summed radii plus the margin. Touching counts.

mod bracket;
mod interval;
mod solve;

pub(crate) use solve::{Contact, PairKin};

use crate::error::QueryError;
use crate::motion::Body;
use crate::state::ObjectState;

/// When and for how long: the query time, the horizon and the safety margin.
///
/// Modelled on parry's `ShapeCastOptions`: a plain struct with a constructor and `with_*`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContactOptions {
    /// Query time `T`, seconds.
    pub at: f64,
    /// Horizon `h ≥ 0`: contacts in `[T, T + h]` count.
    pub horizon: f64,
    /// Safety margin `m ≥ 0`: shapes closer than this count as touching.
    pub margin: f64,
}

impl ContactOptions {
    /// Contacts in `[at, at + horizon]`, no margin.
    pub fn new(at: f64, horizon: f64) -> Self {
        ContactOptions {
            at,
            horizon,
            margin: 0.0,
        }
    }

    /// Sets the safety margin.
    pub fn with_margin(mut self, margin: f64) -> Self {
        self.margin = margin;
        self
    }

    /// Checks that every number is usable.
    pub fn validate(&self) -> Result<(), QueryError> {
        if !self.at.is_finite() {
            return Err(QueryError::BadAt(self.at));
        }
        if !(self.horizon.is_finite() && self.horizon >= 0.0) {
            return Err(QueryError::BadHorizon(self.horizon));
        }
        if !(self.margin.is_finite() && self.margin >= 0.0) {
            return Err(QueryError::BadMargin(self.margin));
        }
        Ok(())
    }
}

/// The first contact of a pair within the horizon (absolute times, seconds).
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct PairContact {
    /// First instant of contact (`T` if already touching).
    pub t_contact: f64,
    /// End of that first contact interval, capped at `T + h`.
    pub t_separation: f64,
    /// Smallest gap between the shapes over `[T, T + h]` (0 when they overlap).
    pub min_distance: f64,
    /// First instant that smallest gap is reached.
    pub t_min_distance: f64,
}

impl PairContact {
    pub(crate) fn from_relative(c: Contact, at: f64) -> Self {
        PairContact {
            t_contact: at + c.t_contact,
            t_separation: at + c.t_separation,
            min_distance: c.min_distance,
            t_min_distance: at + c.t_min_distance,
        }
    }
}

/// Exact first contact of `a` and `b` within `[T, T + h]`, or `None` if they never touch.
pub fn pair_contact(
    a: &ObjectState,
    b: &ObjectState,
    opts: &ContactOptions,
) -> Result<Option<PairContact>, QueryError> {
    opts.validate()?;
    let (ba, bb) = (
        Body::new(a, opts.at, opts.horizon),
        Body::new(b, opts.at, opts.horizon),
    );
    let k = PairKin::new(&ba, &bb, opts.margin);
    Ok(k.window(opts.horizon)
        .and_then(|w| k.solve(w))
        .map(|c| PairContact::from_relative(c, opts.at)))
}

/// The gap between the two shapes at absolute time `s` (0 when they overlap).
pub fn gap_at(a: &ObjectState, b: &ObjectState, s: f64) -> f64 {
    let (ba, bb) = (Body::new(a, s, 0.0), Body::new(b, s, 0.0));
    PairKin::new(&ba, &bb, 0.0).gap(0.0)
}

#[cfg(test)]
mod test {
    use super::*;
    use crate::state::StateInput;

    fn st(s: StateInput) -> ObjectState {
        s.validate().unwrap()
    }
    fn contact(a: StateInput, b: StateInput, at: f64, h: f64, m: f64) -> Option<PairContact> {
        let opts = ContactOptions::new(at, h).with_margin(m);
        let (a, b) = (st(a), st(b));
        let ab = pair_contact(&a, &b, &opts).unwrap();
        // The pair is symmetric: swapping the objects must give the same answer.
        let ba = pair_contact(&b, &a, &opts).unwrap();
        match (ab, ba) {
            (Some(x), Some(y)) => {
                for (p, q) in [
                    (x.t_contact, y.t_contact),
                    (x.t_separation, y.t_separation),
                    (x.min_distance, y.min_distance),
                    (x.t_min_distance, y.t_min_distance),
                ] {
                    assert!((p - q).abs() <= 1e-9 * (1.0 + p.abs()), "{x:?} vs {y:?}");
                }
            }
            (x, y) => assert_eq!(x.is_some(), y.is_some()),
        }
        ab
    }
    fn close(x: f64, y: f64) -> bool {
        (x - y).abs() <= 1e-9 * (1.0 + y.abs())
    }
    fn point(id: &str, p: &[f64], v: &[f64]) -> StateInput {
        StateInput::new(id, 0.0, p, v)
    }

    #[test]
    fn head_on_spheres() {
        // Centres 10 apart closing at 2/s, radii 1 + 1: contact when the gap of 8 closes, τ = 4.
        let c = contact(
            point("a", &[0.0, 0.0, 0.0], &[1.0, 0.0, 0.0]).with_radius(1.0),
            point("b", &[10.0, 0.0, 0.0], &[-1.0, 0.0, 0.0]).with_radius(1.0),
            0.0,
            10.0,
            0.0,
        )
        .unwrap();
        assert!(close(c.t_contact, 4.0), "{c:?}");
        // They pass through each other; the overlap lasts until the centres are 2 apart again.
        assert!(close(c.t_separation, 6.0));
        assert_eq!(c.min_distance, 0.0);
        assert!(close(c.t_min_distance, 4.0));
    }

    #[test]
    fn head_on_boxes_and_the_horizon() {
        let a = || point("a", &[0.0, 0.0], &[1.0, 0.0]).with_box(&[1.0, 1.0]);
        let b = || point("b", &[10.0, 0.0], &[-1.0, 0.0]).with_box(&[1.0, 1.0]);
        let c = contact(a(), b(), 0.0, 10.0, 0.0).unwrap();
        assert!(close(c.t_contact, 4.0) && close(c.t_separation, 6.0));
        // Horizon ending exactly at first touch: touching counts.
        let c = contact(a(), b(), 0.0, 4.0, 0.0).unwrap();
        assert!(close(c.t_contact, 4.0) && close(c.t_separation, 4.0));
        assert!(contact(a(), b(), 0.0, 3.999, 0.0).is_none());
        // Separation is capped at T + h.
        let c = contact(a(), b(), 0.0, 5.0, 0.0).unwrap();
        assert_eq!(c.t_separation, 5.0);
    }

    #[test]
    fn right_angle_crossing() {
        // a along x, b along y, both reach the origin at τ = 5. Unit boxes.
        let c = contact(
            point("a", &[-5.0, 0.0, 0.0], &[1.0, 0.0, 0.0]).with_box(&[0.5, 0.5, 0.5]),
            point("b", &[0.0, -5.0, 0.0], &[0.0, 1.0, 0.0]).with_box(&[0.5, 0.5, 0.5]),
            0.0,
            10.0,
            0.0,
        )
        .unwrap();
        assert!(
            close(c.t_contact, 4.0) && close(c.t_separation, 6.0),
            "{c:?}"
        );
        // b one second late: a has left x-overlap ([4, 6]) before b arrives (y-overlap [5,7])?
        // No: they overlap during [5, 6].
        let c = contact(
            point("a", &[-5.0, 0.0, 0.0], &[1.0, 0.0, 0.0]).with_box(&[0.5, 0.5, 0.5]),
            point("b", &[0.0, -6.0, 0.0], &[0.0, 1.0, 0.0]).with_box(&[0.5, 0.5, 0.5]),
            0.0,
            10.0,
            0.0,
        )
        .unwrap();
        assert!(close(c.t_contact, 5.0) && close(c.t_separation, 6.0));
        // Three seconds late: a is gone. Closest approach: a at x = 1.5+, b at y = -1.5…
        let c = contact(
            point("a", &[-5.0, 0.0, 0.0], &[1.0, 0.0, 0.0]).with_box(&[0.5, 0.5, 0.5]),
            point("b", &[0.0, -8.0, 0.0], &[0.0, 1.0, 0.0]).with_box(&[0.5, 0.5, 0.5]),
            0.0,
            10.0,
            0.0,
        );
        assert!(c.is_none());
    }

    #[test]
    fn overtaking() {
        // Same lane, b ahead at 20 m doing 1 m/s, a behind doing 3 m/s. 2 m long cars.
        let c = contact(
            point("a", &[0.0, 0.0], &[3.0, 0.0]).with_box(&[1.0, 0.5]),
            point("b", &[20.0, 0.0], &[1.0, 0.0]).with_box(&[1.0, 0.5]),
            0.0,
            60.0,
            0.0,
        )
        .unwrap();
        assert!(close(c.t_contact, 9.0) && close(c.t_separation, 11.0));
    }

    #[test]
    fn parallel_never_meeting() {
        let c = contact(
            point("a", &[0.0, 0.0], &[1.0, 0.0]).with_radius(1.0),
            point("b", &[0.0, 5.0], &[1.0, 0.0]).with_radius(1.0),
            0.0,
            1e6,
            0.0,
        );
        assert!(c.is_none());
        // ...but a margin of 3 covers the 3 m gap for the whole horizon.
        let c = contact(
            point("a", &[0.0, 0.0], &[1.0, 0.0]).with_radius(1.0),
            point("b", &[0.0, 5.0], &[1.0, 0.0]).with_radius(1.0),
            0.0,
            100.0,
            3.0,
        )
        .unwrap();
        assert_eq!((c.t_contact, c.t_separation), (0.0, 100.0));
        assert!(close(c.min_distance, 3.0) && c.t_min_distance == 0.0);
    }

    #[test]
    fn grazing_tangent_contact() {
        // Spheres of radius 1 passing with centres exactly 2 apart at closest approach.
        let c = contact(
            point("a", &[0.0, 0.0], &[0.0, 0.0]).with_radius(1.0),
            point("b", &[-10.0, 2.0], &[1.0, 0.0]).with_radius(1.0),
            0.0,
            20.0,
            0.0,
        )
        .expect("touching counts");
        assert!(
            (c.t_contact - 10.0).abs() < 1e-3 && c.min_distance.abs() < 1e-9,
            "{c:?}"
        );
        // A hair further and it is a miss.
        assert!(
            contact(
                point("a", &[0.0, 0.0], &[0.0, 0.0]).with_radius(1.0),
                point("b", &[-10.0, 2.0 + 1e-6], &[1.0, 0.0]).with_radius(1.0),
                0.0,
                20.0,
                0.0
            )
            .is_none()
        );
        // Boxes sliding past each other face to face touch over an interval.
        let c = contact(
            point("a", &[0.0, 0.0], &[0.0, 0.0]).with_box(&[1.0, 1.0]),
            point("b", &[-10.0, 2.0], &[1.0, 0.0]).with_box(&[1.0, 1.0]),
            0.0,
            20.0,
            0.0,
        )
        .unwrap();
        assert!(close(c.t_contact, 8.0) && close(c.t_separation, 12.0));
        // Corner to corner: touching at a single instant.
        let c = contact(
            point("a", &[0.0, 0.0], &[0.0, 0.0]).with_box(&[1.0, 1.0]),
            point("b", &[-4.0, 4.0], &[1.0, -1.0]).with_box(&[1.0, 1.0]),
            0.0,
            20.0,
            0.0,
        )
        .unwrap();
        assert!(close(c.t_contact, 2.0), "{c:?}");
    }

    #[test]
    fn already_overlapping_at_query_time() {
        let c = contact(
            StateInput::new("a", 7.0, &[0.0, 0.0, 0.0], &[1.0, 0.0, 0.0])
                .with_box(&[1.0, 1.0, 1.0]),
            StateInput::new("b", 6.0, &[1.5, 0.5, 0.5], &[-1.0, 0.0, 0.0]).with_radius(0.1),
            7.0,
            5.0,
            0.0,
        )
        .unwrap();
        assert_eq!(c.t_contact, 7.0);
        assert_eq!(c.min_distance, 0.0);
        assert_eq!(c.t_min_distance, 7.0);
        // b leaves a's box when the centre offset exceeds 1 + 0.1 on x: 0.5 − 2τ = −1.1.
        assert!(close(c.t_separation, 7.8));
    }

    #[test]
    fn meeting_only_because_of_acceleration() {
        // Both at rest, 10 apart, accelerating towards each other at 1 m/s²:
        // gap closes as τ² (each covers ½τ²); radii 1 + 1 → contact when τ² = 8.
        let c = contact(
            point("a", &[0.0, 0.0, 0.0], &[])
                .with_accel(&[1.0, 0.0, 0.0])
                .with_radius(1.0),
            point("b", &[10.0, 0.0, 0.0], &[])
                .with_force(&[-2.0, 0.0, 0.0], 2.0)
                .with_radius(1.0),
            0.0,
            5.0,
            0.0,
        )
        .unwrap();
        assert!(close(c.t_contact, 8f64.sqrt()), "{c:?}");
        // Offset 10 − τ²: they pass through each other and part when it reaches −2.
        assert!(close(c.t_separation, 12f64.sqrt()));
        // Linear extrapolation sees nothing.
        assert!(
            contact(
                point("a", &[0.0, 0.0, 0.0], &[]).with_radius(1.0),
                point("b", &[10.0, 0.0, 0.0], &[]).with_radius(1.0),
                0.0,
                5.0,
                0.0
            )
            .is_none()
        );
    }

    #[test]
    fn acceleration_turns_away_a_linear_collision() {
        // Head-on at 2 m/s closing over 10 m (linear contact at τ = 4), but b brakes hard
        // (and reverses): b's x = 10 − τ + 0.5·τ²  → offset 10 − 2τ + 0.5τ², min 8 at τ = 2.
        let a = || point("a", &[0.0, 0.0], &[1.0, 0.0]).with_radius(1.0);
        let b = || point("b", &[10.0, 0.0], &[-1.0, 0.0]).with_radius(1.0);
        assert!(contact(a(), b(), 0.0, 10.0, 0.0).is_some());
        assert!(contact(a(), b().with_accel(&[1.0, 0.0]), 0.0, 10.0, 0.0).is_none());
        // ... and the closest approach is reported when a margin makes it a contact.
        let c = contact(a(), b().with_accel(&[1.0, 0.0]), 0.0, 10.0, 6.0).unwrap();
        assert!(
            close(c.min_distance, 6.0) && close(c.t_min_distance, 2.0),
            "{c:?}"
        );
        // Tangency (min gap == margin) is ill-conditioned in time: √ulp, not ulp.
        assert!((c.t_contact - 2.0).abs() < 1e-6 && (c.t_separation - 2.0).abs() < 1e-6);
    }

    #[test]
    fn contact_starts_and_ends_inside_the_horizon() {
        // A curving path: b comes down and goes back up (a parabola), clipping a's box.
        // b: y = 3 − 2τ + 0.5τ², min 1 at τ = 2; a box half-height 1, b radius 0.5:
        // contact while y ≤ 1.5, i.e. 0.5τ² − 2τ + 1.5 ≤ 0 → τ ∈ [1, 3].
        let c = contact(
            point("a", &[0.0, 0.0], &[]).with_box(&[1.0, 1.0]),
            point("b", &[0.0, 3.0], &[0.0, -2.0])
                .with_accel(&[0.0, 1.0])
                .with_radius(0.5),
            0.0,
            10.0,
            0.0,
        )
        .unwrap();
        assert!(
            close(c.t_contact, 1.0) && close(c.t_separation, 3.0),
            "{c:?}"
        );
        assert_eq!(c.min_distance, 0.0);
        assert!(close(c.t_min_distance, 1.0));
    }

    #[test]
    fn box_sphere_corner_contact() {
        // Sphere moving diagonally at the box corner (1, 1): contact when the centre is within
        // radius 1 of the corner, i.e. at distance √2·(k) along the diagonal.
        let c = contact(
            point("box", &[0.0, 0.0], &[]).with_box(&[1.0, 1.0]),
            point("ball", &[5.0, 5.0], &[-1.0, -1.0]).with_radius(1.0),
            0.0,
            10.0,
            0.0,
        )
        .unwrap();
        // Centre at (5−τ, 5−τ); distance to corner √2·(4−τ) = 1 → τ = 4 − 1/√2.
        assert!(close(c.t_contact, 4.0 - 0.5f64.sqrt()), "{c:?}");
        // Passing the corner (1, 1) on the line x + y = s, moving along (−1, 1): the corner is
        // the closest feature, at distance (s − 2)/√2. Contact iff that is ≤ 1.
        let pass =
            |s: f64| point("ball", &[s / 2.0 + 5.0, s / 2.0 - 5.0], &[-1.0, 1.0]).with_radius(1.0);
        let bx = || point("box", &[0.0, 0.0], &[]).with_box(&[1.0, 1.0]);
        let r2 = 2f64.sqrt();
        assert!(contact(bx(), pass(2.0 + r2 * 1.01), 0.0, 10.0, 0.0).is_none());
        let c = contact(bx(), pass(2.0 + r2 * 1.01), 0.0, 10.0, 0.02).unwrap();
        assert!(
            close(c.min_distance, 0.01) && close(c.t_min_distance, 5.0),
            "{c:?}"
        );
        let c = contact(bx(), pass(2.0 + r2 * 0.99), 0.0, 10.0, 0.0).unwrap();
        let d = (0.5f64 - 0.5 * 0.99 * 0.99).sqrt();
        assert!(
            close(c.t_contact, 5.0 - d) && close(c.t_separation, 5.0 + d),
            "{c:?}"
        );
    }

    #[test]
    fn margin_turns_a_near_miss_into_a_contact() {
        let a = || point("a", &[0.0, 0.0], &[]).with_radius(1.0);
        let b = || point("b", &[-10.0, 2.5], &[1.0, 0.0]).with_radius(1.0);
        assert!(contact(a(), b(), 0.0, 20.0, 0.0).is_none());
        let c = contact(a(), b(), 0.0, 20.0, 0.5).unwrap();
        assert!(close(c.min_distance, 0.5) && close(c.t_min_distance, 10.0));
        assert!((c.t_contact - 10.0).abs() < 1e-3);
        // margin 0.6: contact while |c| ≤ 2.6 → Δx = √(2.6² − 2.5²)
        let c = contact(a(), b(), 0.0, 20.0, 0.6).unwrap();
        let dx = (2.6f64 * 2.6 - 2.5 * 2.5).sqrt();
        assert!(close(c.t_contact, 10.0 - dx) && close(c.t_separation, 10.0 + dx));
    }

    #[test]
    fn three_dimensions_and_points() {
        // Two points meeting exactly at one instant in 3D.
        let c = contact(
            point("a", &[0.0, 0.0, 0.0], &[1.0, 1.0, 1.0]),
            point("b", &[2.0, 2.0, 2.0], &[-1.0, -1.0, -1.0]),
            0.0,
            5.0,
            0.0,
        )
        .unwrap();
        assert!(close(c.t_contact, 1.0) && c.min_distance < 1e-9, "{c:?}");
        // Points missing by 1 in z: the classic CPA distance.
        let c = contact(
            point("a", &[0.0, 0.0, 0.0], &[1.0, 0.0, 0.0]),
            point("b", &[10.0, 0.0, 1.0], &[-1.0, 0.0, 0.0]),
            0.0,
            10.0,
            1.0,
        )
        .unwrap();
        assert!(close(c.min_distance, 1.0) && close(c.t_min_distance, 5.0));
        // The same pair, 2D: z drops out and they meet.
        let c = contact(
            point("a", &[0.0, 0.0], &[1.0, 0.0]),
            point("b", &[10.0, 0.0], &[-1.0, 0.0]),
            0.0,
            10.0,
            0.0,
        )
        .unwrap();
        assert!(close(c.t_contact, 5.0));
    }

    #[test]
    fn staggered_timestamps_are_propagated() {
        // b reported 2 s before a: at s = 10 it is at x = 12. Offset 12 closing at 2/s,
        // radii 0.5 + 0.5: contact at τ = 5.5, s = 15.5.
        let a = StateInput::new("a", 10.0, &[0.0, 0.0], &[1.0, 0.0]).with_radius(0.5);
        let b = StateInput::new("b", 8.0, &[14.0, 0.0], &[-1.0, 0.0]).with_radius(0.5);
        let c = contact(a, b, 10.0, 10.0, 0.0).unwrap();
        assert!(close(c.t_contact, 15.5), "{c:?}");
    }

    #[test]
    fn large_coordinates_small_objects() {
        let x0 = 1.0e7;
        let c = contact(
            point("a", &[x0, x0, 10.0], &[1.0, 0.0, 0.0]).with_box(&[0.5, 0.5, 0.5]),
            point("b", &[x0 + 10.0, x0 + 0.9, 10.0], &[-1.0, 0.0, 0.0]).with_box(&[0.5, 0.5, 0.5]),
            0.0,
            10.0,
            0.0,
        )
        .unwrap();
        assert!((c.t_contact - 4.5).abs() < 1e-6, "{c:?}");
        assert!(
            contact(
                point("a", &[x0, x0, 10.0], &[1.0, 0.0, 0.0]).with_box(&[0.5, 0.5, 0.5]),
                point("b", &[x0 + 10.0, x0 + 1.01, 10.0], &[-1.0, 0.0, 0.0])
                    .with_box(&[0.5, 0.5, 0.5]),
                0.0,
                10.0,
                0.0
            )
            .is_none()
        );
    }

    #[test]
    fn zero_horizon_is_an_instantaneous_overlap_test() {
        let a = || StateInput::new("a", 3.0, &[0.0, 0.0], &[5.0, 0.0]).with_radius(1.0);
        let b = |x: f64| StateInput::new("b", 3.0, &[x, 0.0], &[]).with_radius(1.0);
        let c = contact(a(), b(1.5), 3.0, 0.0, 0.0).unwrap();
        assert_eq!(
            (c.t_contact, c.t_separation, c.t_min_distance),
            (3.0, 3.0, 3.0)
        );
        assert!(contact(a(), b(2.5), 3.0, 0.0, 0.0).is_none());
        let c = contact(a(), b(2.5), 3.0, 0.0, 0.5).unwrap();
        assert!(close(c.min_distance, 0.5));
    }

    #[test]
    fn zero_relative_motion() {
        let c = contact(
            point("a", &[0.0, 0.0], &[3.0, 4.0]).with_radius(1.0),
            point("b", &[1.0, 0.0], &[3.0, 4.0]).with_radius(1.0),
            0.0,
            10.0,
            0.0,
        )
        .unwrap();
        assert_eq!((c.t_contact, c.t_separation), (0.0, 10.0));
    }

    #[test]
    fn bad_options_are_errors() {
        let a = st(point("a", &[0.0, 0.0], &[]));
        for (o, want) in [
            (ContactOptions::new(0.0, -1.0), "horizon"),
            (ContactOptions::new(0.0, f64::NAN), "horizon"),
            (ContactOptions::new(f64::INFINITY, 1.0), "at"),
            (ContactOptions::new(0.0, 1.0).with_margin(-0.1), "margin"),
        ] {
            let e = pair_contact(&a, &a, &o).unwrap_err();
            assert!(e.to_string().contains(want), "{e}");
        }
    }
}
