//! Motion under constant acceleration.
//!
//! An object's position at time `s` is
//!
//! ```text
//! p(s) = p + v·(s − t) + ½·a·(s − t)²
//! ```
//!
//! where `t` is its snapshot time. Queries first propagate every state to the query time `T`
//! (one [`Body`] per object) and then work in query-relative time `τ = s − T ∈ [0, h]`.

use crate::state::ObjectState;

/// Relative size of the slack added to filters so roundoff can never drop a true contact.
/// Contacts are decided with tolerance `TOL_REL × scale`; boxes are padded by three times
/// that, well inside DESIGN.md's allowance of `1e-9 × scale`.
pub(crate) const TOL_REL: f64 = 1e-12;

/// Position of `state` at time `s`.
pub fn position_at(state: &ObjectState, s: f64) -> [f64; 3] {
    let dt = s - state.t();
    let (p, v, a) = (state.position(), state.velocity(), state.acceleration());
    std::array::from_fn(|j| p[j] + v[j] * dt + 0.5 * a[j] * dt * dt)
}

/// Velocity of `state` at time `s`.
pub fn velocity_at(state: &ObjectState, s: f64) -> [f64; 3] {
    let dt = s - state.t();
    let (v, a) = (state.velocity(), state.acceleration());
    std::array::from_fn(|j| v[j] + a[j] * dt)
}

/// An object propagated to the query time: everything the narrow phase needs, by value.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Body {
    /// Position, velocity and acceleration at `T`.
    pub p: [f64; 3],
    pub v: [f64; 3],
    pub a: [f64; 3],
    /// Box half-extents (0 for spheres and points).
    pub w: [f64; 3],
    /// Sphere radius (0 for boxes and points).
    pub r: f64,
    /// Magnitude of the numbers involved: |p|, |v|·h, |a|·h², extents. Sets roundoff slack.
    pub scale: f64,
}

impl Body {
    pub fn new(state: &ObjectState, at: f64, horizon: f64) -> Body {
        let shape = state.shape();
        let (p, v, a) = (
            position_at(state, at),
            velocity_at(state, at),
            state.acceleration(),
        );
        let w = shape.half_extents();
        let r = shape.radius();
        let mut scale = r;
        for j in 0..3 {
            scale = scale
                .max(p[j].abs())
                .max(v[j].abs() * horizon)
                .max(a[j].abs() * horizon * horizon)
                .max(w[j]);
        }
        Body {
            p,
            v,
            a,
            w,
            r,
            scale,
        }
    }

    /// Bounding box of the shape, grown by `grow`, over its trajectory for τ ∈ [0, h].
    ///
    /// Each axis is a quadratic in τ, so its extremes are at τ = 0, τ = h or the vertex.
    /// The box is padded by a few ulps of the object's scale so that boxes which truly touch
    /// never fail to overlap after rounding.
    pub fn swept_box(&self, horizon: f64, grow: f64) -> Aabb {
        let pad = 3.0 * TOL_REL * self.scale;
        let mut lo = [0.0; 3];
        let mut hi = [0.0; 3];
        for j in 0..3 {
            let (p, v, a) = (self.p[j], self.v[j], self.a[j]);
            let end = p + v * horizon + 0.5 * a * horizon * horizon;
            let (mut mn, mut mx) = if end < p { (end, p) } else { (p, end) };
            if a != 0.0 {
                let tv = -v / a;
                if tv > 0.0 && tv < horizon {
                    let x = p + v * tv + 0.5 * a * tv * tv;
                    mn = mn.min(x);
                    mx = mx.max(x);
                }
            }
            let ext = self.w[j] + self.r + grow + pad;
            lo[j] = mn - ext;
            hi[j] = mx + ext;
        }
        Aabb { lo, hi }
    }
}

/// An axis-aligned box, closed on every side.
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub(crate) struct Aabb {
    pub lo: [f64; 3],
    pub hi: [f64; 3],
}

impl Aabb {
    /// The projection-overlap test (GPCD eq. 2): the intervals overlap on every axis.
    #[inline]
    pub fn overlaps(&self, o: &Aabb) -> bool {
        self.lo[0] <= o.hi[0]
            && o.lo[0] <= self.hi[0]
            && self.lo[1] <= o.hi[1]
            && o.lo[1] <= self.hi[1]
            && self.lo[2] <= o.hi[2]
            && o.lo[2] <= self.hi[2]
    }
}

#[cfg(test)]
mod test {
    use super::*;
    use crate::state::StateInput;

    #[test]
    fn propagates_forwards_and_backwards() {
        let s = StateInput::new("a", 10.0, &[1.0, 2.0, 3.0], &[1.0, 0.0, -1.0])
            .with_accel(&[2.0, 0.0, 0.0])
            .validate()
            .unwrap();
        assert_eq!(position_at(&s, 12.0), [1.0 + 2.0 + 4.0, 2.0, 1.0]);
        assert_eq!(velocity_at(&s, 12.0), [5.0, 0.0, -1.0]);
        assert_eq!(position_at(&s, 9.0), [1.0 - 1.0 + 1.0, 2.0, 4.0]);
    }

    #[test]
    fn swept_box_includes_the_vertex_of_a_turning_path() {
        // Thrown up at 10 m/s with g = -10: peaks at 5 m after 1 s, back at 0 after 2 s.
        let s = StateInput::new("a", 0.0, &[0.0, 0.0, 0.0], &[0.0, 0.0, 10.0])
            .with_accel(&[0.0, 0.0, -10.0])
            .with_radius(1.0)
            .validate()
            .unwrap();
        let b = Body::new(&s, 0.0, 2.0).swept_box(2.0, 0.5);
        assert!((b.hi[2] - 6.5).abs() < 1e-9 && (b.lo[2] + 1.5).abs() < 1e-9);
        assert!((b.lo[0] + 1.5).abs() < 1e-9 && (b.hi[0] - 1.5).abs() < 1e-9);
    }
}
