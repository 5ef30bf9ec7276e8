//! # horizon-core
//!
//! HorizonDB's engine: given moving objects, a query time `T`, a horizon `h` and a margin
//! `m`, find every pair that comes into contact within `[T, T + h]`, and exactly when.
//!
//! ## Model
//! - [`StateInput`] → [`ObjectState`]: validated once, at construction.
//! - Motion: `p(s) = p + v·(s − t) + ½·a·(s − t)²` ([`position_at`]).
//! - Contact rule: `dist(c(τ), [−W, W]) ≤ R` for the centre offset `c`, summed box
//!   half-extents `W` and summed radii plus margin `R` (see `DESIGN.md`).
//!
//! ## Queries
//! - [`collisions`]: all pairs, through a broad phase ([`Algorithm`]: GPCD grid, R-tree
//!   baseline, brute-force oracle) and one shared exact narrow phase.
//! - [`collisions_of`]: one object against all others.
//! - [`window_query`]: which objects enter a region, and when.
//! - [`pair_contact`]: one pair.
//!
//! ## Exactness
//! Every filter (swept boxes, grid cells, the time-interval test) is conservative with a
//! slack of a few ulps of the scene's scale, and the solver never depends on a closed-form
//! cubic or quartic root that could be dropped: `D²` is split into monotone pieces first.
//! The engine knows nothing of files, HTTP or threads beyond `rayon`.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod broad;
mod contact;
mod error;
mod filter;
mod geo;
mod hugebuf;
mod meta;
mod motion;
mod object;
mod query;
mod state;
mod watch;
mod window;

pub use broad::{DEFAULT_CELL_SCALE, GridParams, GridReport};
pub use contact::{ContactOptions, PairContact, gap_at, pair_contact};
pub use error::{QueryError, StateError};
pub use filter::PairFilter;
pub use geo::{GeoState, GeoStateInput, Hull, LatLon, PairGeo, PairPositions, geo_collisions};
pub use meta::{MAX_META_BYTES, Meta};
pub use motion::{position_at, velocity_at};
pub use object::{Object, ObjectInput, collisions_of_object, query_objects};
pub use query::{
    Algorithm, Answer, CollisionPair, PhaseSeconds, PrunePower, QueryParams, QueryStats,
    UnknownAlgorithm, collisions, collisions_filtered, collisions_of,
};
pub use state::{MAX_ID_BYTES, ObjectState, Shape, ShapeInput, StateInput};
pub use watch::{Change, Debouncer, Watch, WatchParams};
pub use window::{WindowError, WindowHit, window_query};

/// Entry points for the micro-benchmarks in `horizon-bench` (swept boxes, grid build).
/// Not part of the stable API.
#[doc(hidden)]
pub mod internals {
    use crate::broad::{Grid, Scene};
    use crate::{GridParams, ObjectState};

    /// The swept boxes of every state over `[at, at + horizon]`.
    pub fn swept_boxes(states: &[ObjectState], at: f64, horizon: f64, margin: f64) -> usize {
        Scene::new(states, at, horizon, margin).boxes.len()
    }

    /// Builds the GPCD grid over the swept boxes; returns the number of (cell, object) entries.
    pub fn grid_build(
        states: &[ObjectState],
        at: f64,
        horizon: f64,
        margin: f64,
        grid: GridParams,
    ) -> usize {
        Grid(grid).entries_of(&Scene::new(states, at, horizon, margin).boxes)
    }
}
