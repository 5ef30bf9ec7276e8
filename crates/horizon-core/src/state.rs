//! Object states: the raw input form ([`StateInput`]) and the validated form ([`ObjectState`]).
//!
//! Validation happens once, at construction: an [`ObjectState`] always has finite numbers,
//! consistent lengths and a non-negative shape, so the engine never re-checks.

use std::sync::Arc;

use crate::error::StateError;
use crate::meta::Meta;

/// Longest accepted id, in bytes of UTF-8.
pub const MAX_ID_BYTES: usize = 128;

/// The shape carried by an object; its centre follows the object's motion.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Shape {
    /// No extent (the default).
    Point,
    /// Axis-aligned box with these half-extents (x, y, z); 2D boxes have z = 0.
    Box([f64; 3]),
    /// Sphere (a disc in 2D) of this radius.
    Sphere(f64),
}

impl Shape {
    /// Half-extents of the box part (0 for spheres and points).
    pub fn half_extents(&self) -> [f64; 3] {
        match *self {
            Shape::Box(w) => w,
            _ => [0.0; 3],
        }
    }

    /// Radius of the round part (0 for boxes and points).
    pub fn radius(&self) -> f64 {
        match *self {
            Shape::Sphere(r) => r,
            _ => 0.0,
        }
    }
}

/// The shape as written in input: `{"box": [hx, hy(, hz)]}`, `{"radius": r}`, or `{}` for a point.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct ShapeInput {
    /// Box half-extents, same length as `p`.
    #[cfg_attr(
        feature = "serde",
        serde(rename = "box", default, skip_serializing_if = "Option::is_none")
    )]
    pub half_extents: Option<Vec<f64>>,
    /// Sphere radius.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub radius: Option<f64>,
}

/// One object's kinematic snapshot as a client writes it (see DESIGN.md "Objects").
///
/// Nothing is checked until [`StateInput::validate`] turns it into an [`ObjectState`].
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct StateInput {
    /// Object id, 1..=128 bytes.
    pub id: String,
    /// Time of the snapshot, seconds.
    pub t: f64,
    /// Position, 2 or 3 numbers.
    pub p: Vec<f64>,
    /// Velocity, same length as `p`; omitted means at rest.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub v: Vec<f64>,
    /// Constant acceleration, same length as `p`.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub accel: Option<Vec<f64>>,
    /// Constant force; needs `mass`, gives `accel = force / mass`.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub force: Option<Vec<f64>>,
    /// Mass, > 0, with `force`.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub mass: Option<f64>,
    /// Shape; omitted means a point.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub shape: Option<ShapeInput>,
    /// Display name.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub name: Option<String>,
    /// What the object is.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub kind: Option<String>,
    /// Fleet or group (see the `same_group` filter).
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub group: Option<String>,
    /// Status, e.g. an AIS navigation status (see the `exclude_status` filter).
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub status: Option<String>,
}

impl StateInput {
    /// A state at position `p` with velocity `v` (pass `&[]` for an object at rest).
    pub fn new(id: impl Into<String>, t: f64, p: &[f64], v: &[f64]) -> Self {
        StateInput {
            id: id.into(),
            t,
            p: p.to_vec(),
            v: v.to_vec(),
            ..Default::default()
        }
    }

    /// Adds a constant acceleration.
    pub fn with_accel(mut self, a: &[f64]) -> Self {
        self.accel = Some(a.to_vec());
        self
    }

    /// Adds a constant force acting on `mass`.
    pub fn with_force(mut self, f: &[f64], mass: f64) -> Self {
        self.force = Some(f.to_vec());
        self.mass = Some(mass);
        self
    }

    /// Makes the object an axis-aligned box with these half-extents.
    pub fn with_box(mut self, half_extents: &[f64]) -> Self {
        self.shape = Some(ShapeInput {
            half_extents: Some(half_extents.to_vec()),
            radius: None,
        });
        self
    }

    /// Makes the object a sphere of radius `r`.
    pub fn with_radius(mut self, r: f64) -> Self {
        self.shape = Some(ShapeInput {
            half_extents: None,
            radius: Some(r),
        });
        self
    }

    /// Checks every rule of DESIGN.md "Objects" and builds the engine's form.
    pub fn validate(&self) -> Result<ObjectState, StateError> {
        if self.id.is_empty() {
            return Err(StateError::EmptyId);
        }
        if self.id.len() > MAX_ID_BYTES {
            return Err(StateError::IdTooLong {
                len: self.id.len(),
                max: MAX_ID_BYTES,
            });
        }
        finite("t", self.t)?;
        let dims = self.p.len();
        if dims != 2 && dims != 3 {
            return Err(StateError::BadDimension { got: dims });
        }
        let p = vector("p", &self.p, dims)?;
        let v = if self.v.is_empty() {
            [0.0; 3]
        } else {
            vector("v", &self.v, dims)?
        };
        let motion = match (&self.accel, &self.force, self.mass) {
            (Some(_), Some(_), _) => return Err(StateError::AccelAndForce),
            (Some(a), None, None) => Accel::Given(vector("accel", a, dims)?),
            (Some(_), None, Some(_)) => return Err(StateError::MassWithoutForce),
            (None, Some(_), None) => return Err(StateError::ForceWithoutMass),
            (None, None, Some(_)) => return Err(StateError::MassWithoutForce),
            (None, Some(f), Some(m)) => {
                let f = vector("force", f, dims)?;
                finite("mass", m)?;
                if m <= 0.0 {
                    return Err(StateError::NonPositiveMass { value: m });
                }
                Accel::Force { force: f, mass: m }
            }
            (None, None, None) => Accel::None,
        };
        let a = motion.acceleration();
        for (j, x) in a.iter().enumerate() {
            // force / mass can overflow even when both are finite.
            finite_at("accel", j, *x)?;
        }
        let shape = match &self.shape {
            None => Shape::Point,
            Some(ShapeInput {
                half_extents: Some(_),
                radius: Some(_),
            }) => return Err(StateError::AmbiguousShape),
            Some(ShapeInput {
                half_extents: Some(w),
                radius: None,
            }) => {
                let w = vector("box", w, dims)?;
                for (j, x) in w.iter().enumerate().take(dims) {
                    if *x < 0.0 {
                        return Err(StateError::Negative {
                            field: format!("shape.box[{j}]"),
                            value: *x,
                        });
                    }
                }
                Shape::Box(w)
            }
            Some(ShapeInput {
                half_extents: None,
                radius: Some(r),
            }) => {
                finite("shape.radius", *r)?;
                if *r < 0.0 {
                    return Err(StateError::Negative {
                        field: "shape.radius".into(),
                        value: *r,
                    });
                }
                Shape::Sphere(*r)
            }
            Some(ShapeInput {
                half_extents: None,
                radius: None,
            }) => Shape::Point,
        };
        Ok(ObjectState {
            id: self.id.clone(),
            t: self.t,
            dims: dims as u8,
            p,
            v,
            motion,
            a,
            shape,
            meta: Meta::of(&self.name, &self.kind, &self.group, &self.status).validated()?,
        })
    }
}

/// How the acceleration was given, kept so a state round-trips exactly.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Accel {
    None,
    Given([f64; 3]),
    Force { force: [f64; 3], mass: f64 },
}

impl Accel {
    fn acceleration(&self) -> [f64; 3] {
        match *self {
            Accel::None => [0.0; 3],
            Accel::Given(a) => a,
            Accel::Force { force, mass } => force.map(|f| f / mass),
        }
    }
}

/// A validated object state. Build one with [`StateInput::validate`].
///
/// Motion: `p(s) = p + v·(s − t) + ½·a·(s − t)²` with `a` the constant acceleration.
#[derive(Debug, Clone, PartialEq)]
pub struct ObjectState {
    id: String,
    t: f64,
    dims: u8,
    p: [f64; 3],
    v: [f64; 3],
    motion: Accel,
    a: [f64; 3],
    shape: Shape,
    meta: Option<Arc<Meta>>,
}

impl ObjectState {
    /// The object's id.
    pub fn id(&self) -> &str {
        &self.id
    }
    /// Time of the snapshot.
    pub fn t(&self) -> f64 {
        self.t
    }
    /// 2 or 3.
    pub fn dims(&self) -> usize {
        self.dims as usize
    }
    /// Position at [`Self::t`] (z = 0 in 2D).
    pub fn position(&self) -> [f64; 3] {
        self.p
    }
    /// Velocity at [`Self::t`].
    pub fn velocity(&self) -> [f64; 3] {
        self.v
    }
    /// Constant acceleration (`force / mass` when given as a force).
    pub fn acceleration(&self) -> [f64; 3] {
        self.a
    }
    /// The shape.
    pub fn shape(&self) -> Shape {
        self.shape
    }
    /// Name, kind, group and status (all empty when none were given).
    pub fn meta(&self) -> &Meta {
        self.meta.as_deref().unwrap_or(&Meta::EMPTY)
    }
    /// Speed at time `s`: `|v + a·(s − t)|`.
    pub fn speed_at(&self, s: f64) -> f64 {
        let dt = s - self.t;
        (0..3)
            .map(|j| (self.v[j] + self.a[j] * dt).powi(2))
            .sum::<f64>()
            .sqrt()
    }

    /// A metric state built by the engine (geographic projection), already valid.
    pub(crate) fn from_parts(
        id: String,
        t: f64,
        p: [f64; 3],
        v: [f64; 3],
        a: [f64; 3],
        shape: Shape,
        meta: Option<Arc<Meta>>,
    ) -> Self {
        let motion = if a == [0.0; 3] {
            Accel::None
        } else {
            Accel::Given(a)
        };
        ObjectState {
            id,
            t,
            dims: 3,
            p,
            v,
            motion,
            a,
            shape,
            meta,
        }
    }

    /// The input form this state was built from (same numbers, same accel/force choice).
    pub fn to_input(&self) -> StateInput {
        let d = self.dims();
        let cut = |x: &[f64; 3]| x[..d].to_vec();
        let (accel, force, mass) = match self.motion {
            Accel::None => (None, None, None),
            Accel::Given(a) => (Some(cut(&a)), None, None),
            Accel::Force { force, mass } => (None, Some(cut(&force)), Some(mass)),
        };
        let shape = match self.shape {
            Shape::Point => None,
            Shape::Box(w) => Some(ShapeInput {
                half_extents: Some(cut(&w)),
                radius: None,
            }),
            Shape::Sphere(r) => Some(ShapeInput {
                half_extents: None,
                radius: Some(r),
            }),
        };
        StateInput {
            id: self.id.clone(),
            t: self.t,
            p: cut(&self.p),
            v: cut(&self.v),
            accel,
            force,
            mass,
            shape,
            name: self.meta().name.clone(),
            kind: self.meta().kind.clone(),
            group: self.meta().group.clone(),
            status: self.meta().status.clone(),
        }
    }
}

fn finite(field: &str, x: f64) -> Result<(), StateError> {
    if x.is_finite() {
        Ok(())
    } else {
        Err(StateError::NonFinite {
            field: field.to_string(),
            value: x,
        })
    }
}

fn finite_at(field: &str, j: usize, x: f64) -> Result<(), StateError> {
    if x.is_finite() {
        Ok(())
    } else {
        Err(StateError::NonFinite {
            field: format!("{field}[{j}]"),
            value: x,
        })
    }
}

/// Checks length and finiteness; pads a 2D vector with z = 0.
fn vector(field: &'static str, xs: &[f64], dims: usize) -> Result<[f64; 3], StateError> {
    if xs.len() != dims {
        return Err(StateError::LengthMismatch {
            field,
            expected: dims,
            got: xs.len(),
        });
    }
    let mut out = [0.0; 3];
    for (j, x) in xs.iter().enumerate() {
        finite_at(field, j, *x)?;
        out[j] = *x;
    }
    Ok(out)
}

#[cfg(test)]
mod test {
    use super::*;

    fn base() -> StateInput {
        StateInput::new("a", 0.0, &[1.0, 2.0, 3.0], &[0.0, 0.0, 0.0])
    }

    #[test]
    fn valid_states_round_trip() {
        for s in [
            base(),
            base()
                .with_accel(&[1.0, 0.0, -1.0])
                .with_box(&[1.0, 2.0, 0.0]),
            base().with_force(&[2.0, 0.0, 0.0], 4.0).with_radius(0.5),
            StateInput::new("b", 1.0, &[1.0, 2.0], &[]),
        ] {
            let v = s.validate().unwrap();
            assert_eq!(v.to_input().validate().unwrap(), v);
        }
        let s = base().with_force(&[2.0, 0.0, 0.0], 4.0).validate().unwrap();
        assert_eq!(s.acceleration(), [0.5, 0.0, 0.0]);
        let s = StateInput::new("b", 1.0, &[1.0, 2.0], &[3.0, 4.0])
            .with_box(&[1.0, 1.0])
            .validate()
            .unwrap();
        assert_eq!(s.position(), [1.0, 2.0, 0.0]);
        assert_eq!(s.shape(), Shape::Box([1.0, 1.0, 0.0]));
        assert_eq!(s.dims(), 2);
    }

    fn err(s: StateInput) -> StateError {
        s.validate().unwrap_err()
    }

    #[test]
    fn every_validation_error_names_its_field() {
        let mut s = base();
        s.id = String::new();
        assert_eq!(err(s), StateError::EmptyId);
        let mut s = base();
        s.id = "x".repeat(129);
        assert!(matches!(
            err(s.clone()),
            StateError::IdTooLong { len: 129, .. }
        ));
        s.id = "é".repeat(64); // 128 bytes: allowed
        assert!(s.validate().is_ok());

        let mut s = base();
        s.t = f64::NAN;
        assert!(err(s).to_string().contains("`t`"));
        let mut s = base();
        s.p[1] = f64::INFINITY;
        assert!(err(s).to_string().contains("`p[1]`"));
        let mut s = base();
        s.v[2] = f64::NEG_INFINITY;
        assert!(err(s).to_string().contains("`v[2]`"));
        let s = base().with_accel(&[0.0, f64::NAN, 0.0]);
        assert!(err(s).to_string().contains("`accel[1]`"));
        let s = base().with_force(&[f64::NAN, 0.0, 0.0], 1.0);
        assert!(err(s).to_string().contains("`force[0]`"));
        let s = base().with_force(&[1.0, 0.0, 0.0], f64::NAN);
        assert!(err(s).to_string().contains("`mass`"));
        let s = base().with_force(&[f64::MAX, 0.0, 0.0], 1e-300);
        assert!(
            err(s).to_string().contains("`accel[0]`"),
            "overflowing force/mass"
        );
        let s = base().with_radius(f64::INFINITY);
        assert!(err(s).to_string().contains("`shape.radius`"));
        let s = base().with_box(&[1.0, f64::NAN, 1.0]);
        assert!(err(s).to_string().contains("`box[1]`"));

        let mut s = base();
        s.p = vec![1.0];
        assert_eq!(err(s), StateError::BadDimension { got: 1 });
        let mut s = base();
        s.p = vec![1.0, 2.0, 3.0, 4.0];
        assert_eq!(err(s), StateError::BadDimension { got: 4 });
        let mut s = base();
        s.v = vec![1.0, 2.0];
        assert_eq!(
            err(s),
            StateError::LengthMismatch {
                field: "v",
                expected: 3,
                got: 2
            }
        );
        let s = base().with_accel(&[1.0]);
        assert!(err(s).to_string().contains("`accel`"));
        let s = base().with_force(&[1.0, 2.0], 1.0);
        assert!(err(s).to_string().contains("`force`"));
        let s = base().with_box(&[1.0, 1.0]);
        assert!(err(s).to_string().contains("`box`"));

        let s = base().with_box(&[1.0, -1.0, 1.0]);
        assert!(err(s).to_string().contains("`shape.box[1]`"));
        let s = base().with_radius(-0.1);
        assert!(err(s).to_string().contains("`shape.radius`"));
        let s = base().with_force(&[1.0, 0.0, 0.0], 0.0);
        assert_eq!(err(s), StateError::NonPositiveMass { value: 0.0 });
        let s = base().with_force(&[1.0, 0.0, 0.0], -2.0);
        assert_eq!(err(s), StateError::NonPositiveMass { value: -2.0 });
        let s = base()
            .with_accel(&[1.0, 0.0, 0.0])
            .with_force(&[1.0, 0.0, 0.0], 1.0);
        assert_eq!(err(s), StateError::AccelAndForce);
        let mut s = base();
        s.force = Some(vec![1.0, 0.0, 0.0]);
        assert_eq!(err(s), StateError::ForceWithoutMass);
        let mut s = base();
        s.mass = Some(1.0);
        assert_eq!(err(s), StateError::MassWithoutForce);
        let mut s = base();
        s.shape = Some(ShapeInput {
            half_extents: Some(vec![1.0, 1.0, 1.0]),
            radius: Some(1.0),
        });
        assert_eq!(err(s), StateError::AmbiguousShape);
    }
}
