//! The predictive window query (GPCD §1): which objects' shapes enter an axis-aligned region
//! within `[T, T + h]`, and when they enter and leave it.
//!
//! The region is a static box, so this is the pair contact rule with one side fixed: the
//! object is inside (touching counts) while `dist(c(τ), [−W, W]) ≤ r`.

use std::borrow::Borrow;

use rayon::prelude::*;

use crate::contact::{ContactOptions, PairKin};
use crate::error::QueryError;
use crate::motion::Body;
use crate::state::ObjectState;

/// An object that enters the region within the horizon.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct WindowHit {
    /// The object's id.
    pub id: String,
    /// First instant its shape touches the region (`T` if already inside).
    pub t_enter: f64,
    /// End of that first stay, capped at `T + h`.
    pub t_exit: f64,
}

/// Why a region is unusable.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum WindowError {
    /// `min` and `max` must both have 2 or 3 numbers.
    #[error("`min` and `max` must both have 2 or 3 numbers, got {0} and {1}")]
    BadDimension(usize, usize),
    /// A corner coordinate is NaN or infinite.
    #[error("region corners must be finite numbers")]
    NonFinite,
    /// `min` exceeds `max` on some axis.
    #[error("`min[{0}]` is greater than `max[{0}]`")]
    Inverted(usize),
    /// Bad time, horizon or margin.
    #[error(transparent)]
    Query(#[from] QueryError),
}

/// Every object whose shape is in the box `[min, max]` at some time in `[T, T + h]`,
/// ordered by entry time, then id. `opts.margin` grows the region on every side.
pub fn window_query<S: Borrow<ObjectState> + Sync>(
    states: &[S],
    min: &[f64],
    max: &[f64],
    opts: &ContactOptions,
) -> Result<Vec<WindowHit>, WindowError> {
    opts.validate()?;
    if min.len() != max.len() || !(2..=3).contains(&min.len()) {
        return Err(WindowError::BadDimension(min.len(), max.len()));
    }
    if min.iter().chain(max).any(|x| !x.is_finite()) {
        return Err(WindowError::NonFinite);
    }
    if let Some(j) = (0..min.len()).find(|&j| min[j] > max[j]) {
        return Err(WindowError::Inverted(j));
    }
    // A 2D region spans every z, so 2D queries work on 3D objects too.
    let lo: [f64; 3] = std::array::from_fn(|j| min.get(j).copied().unwrap_or(-f64::MAX / 4.0));
    let hi: [f64; 3] = std::array::from_fn(|j| max.get(j).copied().unwrap_or(f64::MAX / 4.0));
    let centre: [f64; 3] = std::array::from_fn(|j| 0.5 * (lo[j] + hi[j]));
    let half: [f64; 3] = std::array::from_fn(|j| 0.5 * (hi[j] - lo[j]));
    let region = Body {
        p: centre,
        v: [0.0; 3],
        a: [0.0; 3],
        w: half,
        r: 0.0,
        scale: (0..min.len())
            .map(|j| centre[j].abs().max(half[j]))
            .fold(0.0, f64::max),
    };
    let mut hits: Vec<WindowHit> = states
        .par_iter()
        .filter_map(|s| {
            let s = s.borrow();
            let body = Body::new(s, opts.at, opts.horizon);
            let k = PairKin::new(&region, &body, opts.margin);
            let c = k.window(opts.horizon).and_then(|w| k.solve(w))?;
            Some(WindowHit {
                id: s.id().to_string(),
                t_enter: opts.at + c.t_contact,
                t_exit: opts.at + c.t_separation,
            })
        })
        .collect();
    hits.sort_by(|a, b| {
        a.t_enter
            .total_cmp(&b.t_enter)
            .then_with(|| a.id.cmp(&b.id))
    });
    Ok(hits)
}

#[cfg(test)]
mod test {
    use super::*;
    use crate::state::StateInput;

    #[test]
    fn entry_and_exit_times() {
        let s = |id: &str, p: &[f64], v: &[f64]| StateInput::new(id, 0.0, p, v).validate().unwrap();
        let states = vec![
            s("in", &[0.0, 0.0], &[]),
            s("crossing", &[-10.0, 0.0], &[2.0, 0.0]),
            s("missing", &[-10.0, 5.0], &[2.0, 0.0]),
            s("late", &[-100.0, 0.0], &[1.0, 0.0]),
        ];
        let hits = window_query(
            &states,
            &[-1.0, -1.0],
            &[1.0, 1.0],
            &ContactOptions::new(0.0, 10.0),
        )
        .unwrap();
        let got: Vec<_> = hits
            .iter()
            .map(|h| (h.id.as_str(), h.t_enter, h.t_exit))
            .collect();
        assert_eq!(got, [("in", 0.0, 10.0), ("crossing", 4.5, 5.5)]);
        // A 2D region catches 3D objects at any height; a margin widens it.
        let high = vec![
            StateInput::new("h", 0.0, &[0.0, 3.0, 500.0], &[])
                .with_radius(1.0)
                .validate()
                .unwrap(),
        ];
        let opts = ContactOptions::new(0.0, 1.0);
        assert!(
            window_query(&high, &[-1.0, -1.0], &[1.0, 1.0], &opts)
                .unwrap()
                .is_empty()
        );
        assert_eq!(
            window_query(&high, &[-1.0, -1.0], &[1.0, 1.0], &opts.with_margin(1.0))
                .unwrap()
                .len(),
            1
        );
        assert!(
            window_query(
                &high,
                &[-1.0, -1.0, 0.0],
                &[1.0, 1.0, 10.0],
                &opts.with_margin(1.0)
            )
            .unwrap()
            .is_empty()
        );
    }

    #[test]
    fn bad_regions() {
        let none: Vec<ObjectState> = vec![];
        let o = ContactOptions::new(0.0, 1.0);
        assert_eq!(
            window_query(&none, &[0.0], &[1.0], &o),
            Err(WindowError::BadDimension(1, 1))
        );
        assert_eq!(
            window_query(&none, &[0.0, 2.0], &[1.0, 1.0], &o),
            Err(WindowError::Inverted(1))
        );
        assert_eq!(
            window_query(&none, &[0.0, f64::NAN], &[1.0, 1.0], &o),
            Err(WindowError::NonFinite)
        );
        assert!(
            window_query(
                &none,
                &[0.0, 0.0],
                &[1.0, 1.0],
                &ContactOptions::new(0.0, -1.0)
            )
            .is_err()
        );
    }
}
