//! Typed errors: one enum per operation so callers can match on what went wrong.

use thiserror::Error;

/// Why an object state was rejected. Every variant names the offending field.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum StateError {
    /// `id` is the empty string.
    #[error("field `id`: must not be empty")]
    EmptyId,
    /// `id` is longer than [`crate::MAX_ID_BYTES`].
    #[error("field `id`: {len} bytes long, at most {max} allowed")]
    IdTooLong {
        /// Length of the given id in bytes.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// A number is NaN or infinite.
    #[error("field `{field}`: must be a finite number, got {value}")]
    NonFinite {
        /// Field path, e.g. `p[1]`.
        field: String,
        /// The offending value.
        value: f64,
    },
    /// `p` has a length other than 2 or 3.
    #[error("field `p`: must have 2 or 3 numbers, got {got}")]
    BadDimension {
        /// Number of coordinates given.
        got: usize,
    },
    /// A vector's length differs from `p`'s.
    #[error("field `{field}`: has {got} numbers but `p` has {expected}")]
    LengthMismatch {
        /// The field whose length is wrong.
        field: &'static str,
        /// Length of `p`.
        expected: usize,
        /// Length of this field.
        got: usize,
    },
    /// A half-extent or radius is negative.
    #[error("field `{field}`: must be >= 0, got {value}")]
    Negative {
        /// Field path, e.g. `shape.box[2]`.
        field: String,
        /// The offending value.
        value: f64,
    },
    /// `mass` is zero or negative.
    #[error("field `mass`: must be > 0, got {value}")]
    NonPositiveMass {
        /// The offending value.
        value: f64,
    },
    /// Both `accel` and `force` were given.
    #[error("fields `accel` and `force`: give one or the other, not both")]
    AccelAndForce,
    /// `force` without `mass`.
    #[error("field `mass`: required when `force` is given")]
    ForceWithoutMass,
    /// `mass` without `force`.
    #[error("field `force`: required when `mass` is given")]
    MassWithoutForce,
    /// Both `shape.box` and `shape.radius` were given.
    #[error("field `shape`: give `box` or `radius`, not both")]
    AmbiguousShape,
    /// A text field is too long.
    #[error("field `{field}`: {len} bytes long, at most {max} allowed")]
    TooLong {
        /// The field.
        field: &'static str,
        /// Its length in bytes.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// A number lies outside the range it must be in.
    #[error("field `{field}`: must be in {range}, got {value}")]
    OutOfRange {
        /// The field.
        field: &'static str,
        /// The allowed range, as text.
        range: &'static str,
        /// The offending value.
        value: f64,
    },
    /// A geographic state gives both an explicit `shape` and AIS `hull` dimensions.
    #[error("fields `shape` and `hull`: give one or the other, not both")]
    ShapeAndHull,
}

/// Why a collision query could not run.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum QueryError {
    /// The horizon is negative or not finite.
    #[error("`horizon` must be a finite number >= 0, got {0}")]
    BadHorizon(f64),
    /// The margin is negative or not finite.
    #[error("`margin` must be a finite number >= 0, got {0}")]
    BadMargin(f64),
    /// The query time is not finite.
    #[error("`at` must be a finite number, got {0}")]
    BadAt(f64),
    /// A grid cell scale is not a finite positive number.
    #[error("`cell_scale` must be finite numbers > 0, got {0:?}")]
    BadCellScale([f64; 3]),
    /// Two states share one id; ids must be unique within a query.
    #[error("id `{0}` appears more than once; a query needs one state per id")]
    DuplicateId(String),
    /// A filter parameter is unusable.
    #[error("{0}")]
    BadFilter(String),
    /// More objects than the engine indexes (u32 indices).
    #[error("{0} objects exceed the limit of {max}", max = u32::MAX)]
    TooManyObjects(usize),
}
