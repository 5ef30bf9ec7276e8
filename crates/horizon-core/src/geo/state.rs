//! Geographic states: latitude/longitude, speed over ground and course, as ships and
//! aircraft report them. The input form ([`GeoStateInput`]) is validated once into a
//! [`GeoState`]; the engine then places it in a local metric frame per query.

use std::sync::Arc;

use super::wgs84::{self, V3, add, scale};
use crate::error::StateError;
use crate::meta::Meta;
use crate::state::{MAX_ID_BYTES, Shape, ShapeInput};

/// AIS reference-point dimensions (message types 5, 19 and 24): metres from the position
/// antenna to the bow, stern, port and starboard sides.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct Hull {
    /// A: antenna to bow.
    pub to_bow: f64,
    /// B: antenna to stern.
    pub to_stern: f64,
    /// C: antenna to port.
    pub to_port: f64,
    /// D: antenna to starboard.
    pub to_starboard: f64,
}

/// A geographic state as a client writes it. Angles in degrees, lengths in metres, times in
/// seconds; a `shape` box's half-extents mean east, north (and up) metres.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct GeoStateInput {
    /// Object id, 1..=128 bytes (an MMSI, an ICAO24 address).
    pub id: String,
    /// Time of the report, unix seconds.
    pub t: f64,
    /// WGS84 latitude, −90..=90.
    pub lat: f64,
    /// WGS84 longitude, −180..=180.
    pub lon: f64,
    /// Altitude, metres; omitted for surface objects (taken as 0).
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub alt: Option<f64>,
    /// Speed over ground, m/s, ≥ 0; omitted means at rest.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub speed: Option<f64>,
    /// Course over ground, degrees clockwise from true north, 0..=360; needed when moving.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub course: Option<f64>,
    /// Climb rate, m/s (negative: descending).
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub vertical_rate: Option<f64>,
    /// Constant acceleration, east/north(/up) m/s².
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub accel: Option<Vec<f64>>,
    /// True heading, degrees (orients `hull`; course is used when omitted).
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub heading: Option<f64>,
    /// Shape: `{"radius": r}` or `{"box": [east, north(, up)]}` half-extents.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub shape: Option<ShapeInput>,
    /// AIS hull dimensions; the shape becomes the hull's footprint, oriented by heading.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub hull: Option<Hull>,
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
    /// Fleet or group.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub group: Option<String>,
    /// Navigation status.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub status: Option<String>,
}

impl GeoStateInput {
    /// A surface object at `lat`, `lon` moving at `speed` m/s on `course` degrees.
    pub fn new(id: impl Into<String>, t: f64, lat: f64, lon: f64, speed: f64, course: f64) -> Self {
        GeoStateInput {
            id: id.into(),
            t,
            lat,
            lon,
            speed: Some(speed),
            course: Some(course),
            ..Default::default()
        }
    }

    /// Checks every field and builds the engine's form.
    pub fn validate(&self) -> Result<GeoState, StateError> {
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
        range("lat", self.lat, -90.0, 90.0, "[-90, 90]")?;
        range("lon", self.lon, -180.0, 180.0, "[-180, 180]")?;
        if let Some(alt) = self.alt {
            finite("alt", alt)?;
        }
        let speed = self.speed.unwrap_or(0.0);
        range("speed", speed, 0.0, f64::MAX, "[0, ∞)")?;
        if let Some(c) = self.course {
            range("course", c, 0.0, 360.0, "[0, 360]")?;
        } else if speed > 0.0 {
            return Err(StateError::OutOfRange {
                field: "course",
                range: "[0, 360] (required when speed > 0)",
                value: f64::NAN,
            });
        }
        if let Some(h) = self.heading {
            range("heading", h, 0.0, 360.0, "[0, 360]")?;
        }
        let vertical_rate = self.vertical_rate.unwrap_or(0.0);
        finite("vertical_rate", vertical_rate)?;
        let accel = match &self.accel {
            None => [0.0; 3],
            Some(a) if a.len() == 2 || a.len() == 3 => {
                let mut out = [0.0; 3];
                for (j, x) in a.iter().enumerate() {
                    if !x.is_finite() {
                        return Err(StateError::NonFinite {
                            field: format!("accel[{j}]"),
                            value: *x,
                        });
                    }
                    out[j] = *x;
                }
                out
            }
            Some(a) => {
                return Err(StateError::LengthMismatch {
                    field: "accel",
                    expected: 3,
                    got: a.len(),
                });
            }
        };
        let shape = match (&self.shape, &self.hull) {
            (Some(_), Some(_)) => return Err(StateError::ShapeAndHull),
            (Some(s), None) => enu_shape(s)?,
            (None, _) => Shape::Point,
        };
        if let Some(h) = &self.hull {
            for (field, x) in [
                ("hull.to_bow", h.to_bow),
                ("hull.to_stern", h.to_stern),
                ("hull.to_port", h.to_port),
                ("hull.to_starboard", h.to_starboard),
            ] {
                range(field, x, 0.0, f64::MAX, "[0, ∞)")?;
            }
        }
        let meta = Meta::of(&self.name, &self.kind, &self.group, &self.status).validated()?;
        Ok(GeoState {
            input: self.clone(),
            speed,
            vertical_rate,
            accel,
            shape,
            meta,
        })
    }
}

/// A shape in east/north/up metres: the metric rules, with 2 or 3 half-extents.
fn enu_shape(s: &ShapeInput) -> Result<Shape, StateError> {
    let dims = s.half_extents.as_ref().map_or(3, |w| w.len().clamp(2, 3));
    let probe = crate::state::StateInput {
        id: "shape".into(),
        p: vec![0.0; dims],
        shape: Some(s.clone()),
        ..Default::default()
    };
    Ok(probe.validate()?.shape())
}

fn finite(field: &'static str, x: f64) -> Result<(), StateError> {
    if x.is_finite() {
        Ok(())
    } else {
        Err(StateError::NonFinite {
            field: field.to_string(),
            value: x,
        })
    }
}

fn range(
    field: &'static str,
    x: f64,
    lo: f64,
    hi: f64,
    text: &'static str,
) -> Result<(), StateError> {
    finite(field, x)?;
    if x < lo || x > hi {
        return Err(StateError::OutOfRange {
            field,
            range: text,
            value: x,
        });
    }
    Ok(())
}

/// A validated geographic state. Build one with [`GeoStateInput::validate`].
///
/// Motion: a straight line (a parabola with acceleration) in the tangent plane at the
/// reported position, which the query's local frame carries exactly; see `geo::frame`.
#[derive(Debug, Clone, PartialEq)]
pub struct GeoState {
    input: GeoStateInput,
    speed: f64,
    vertical_rate: f64,
    accel: [f64; 3],
    shape: Shape,
    meta: Option<Arc<Meta>>,
}

/// A geographic state's motion in ECEF (horizontal part) plus its vertical part.
#[derive(Debug, Clone, Copy)]
pub(crate) struct EcefMotion {
    /// Surface point below the footprint's centre at `t`.
    pub p: V3,
    /// Horizontal velocity, tangent to the surface at `p`.
    pub v: V3,
    /// Horizontal acceleration.
    pub a: V3,
    /// Altitude, climb rate and vertical acceleration.
    pub z: [f64; 3],
    /// East, north and up at `p`.
    pub basis: [V3; 3],
}

impl EcefMotion {
    /// Horizontal position at `s` seconds after the report.
    pub fn at(&self, dt: f64) -> V3 {
        add(self.p, add(scale(self.v, dt), scale(self.a, 0.5 * dt * dt)))
    }
}

impl GeoState {
    /// The object's id.
    pub fn id(&self) -> &str {
        &self.input.id
    }
    /// Time of the report.
    pub fn t(&self) -> f64 {
        self.input.t
    }
    /// Latitude and longitude of the report, degrees.
    pub fn lat_lon(&self) -> (f64, f64) {
        (self.input.lat, self.input.lon)
    }
    /// Speed over ground, m/s.
    pub fn speed(&self) -> f64 {
        self.speed
    }
    /// Name, kind, group and status.
    pub fn meta(&self) -> &Meta {
        self.meta.as_deref().unwrap_or(&Meta::EMPTY)
    }
    pub(crate) fn shared_meta(&self) -> Option<Arc<Meta>> {
        self.meta.clone()
    }
    /// The input form, exactly as given.
    pub fn to_input(&self) -> GeoStateInput {
        self.input.clone()
    }

    /// The footprint in east/north/up metres: the given shape, or the hull's bounding box
    /// at its heading, with the centre's offset from the antenna (east, north).
    pub fn footprint(&self) -> (Shape, [f64; 2]) {
        let Some(h) = self.input.hull else {
            return (self.shape, [0.0; 2]);
        };
        let heading = self.input.heading.or(self.input.course).unwrap_or(0.0);
        let (s, c) = heading.to_radians().sin_cos();
        // Forward and starboard unit vectors, east/north.
        let (fwd, stbd) = ([s, c], [c, -s]);
        let along = 0.5 * (h.to_bow - h.to_stern);
        let across = 0.5 * (h.to_starboard - h.to_port);
        let offset = [
            fwd[0] * along + stbd[0] * across,
            fwd[1] * along + stbd[1] * across,
        ];
        let (half_len, half_wid) = (
            0.5 * (h.to_bow + h.to_stern),
            0.5 * (h.to_port + h.to_starboard),
        );
        if half_len == 0.0 && half_wid == 0.0 {
            return (Shape::Point, [0.0; 2]);
        }
        let half = [
            s.abs() * half_len + c.abs() * half_wid,
            c.abs() * half_len + s.abs() * half_wid,
            0.0,
        ];
        (Shape::Box(half), offset)
    }

    /// The motion in ECEF, from the footprint's centre.
    pub(crate) fn ecef_motion(&self) -> EcefMotion {
        let (lat, lon) = self.lat_lon();
        let basis = wgs84::enu_basis(lat, lon);
        let [e, n, _] = basis;
        let (_, offset) = self.footprint();
        let p = add(
            wgs84::to_ecef(lat, lon),
            add(scale(e, offset[0]), scale(n, offset[1])),
        );
        let (s, c) = self.input.course.unwrap_or(0.0).to_radians().sin_cos();
        let v = add(scale(e, self.speed * s), scale(n, self.speed * c));
        let a = add(scale(e, self.accel[0]), scale(n, self.accel[1]));
        EcefMotion {
            p,
            v,
            a,
            z: [
                self.input.alt.unwrap_or(0.0),
                self.vertical_rate,
                self.accel[2],
            ],
            basis,
        }
    }
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn validation_names_the_field() {
        let ok = GeoStateInput::new("s", 0.0, 40.0, -74.0, 5.0, 90.0);
        assert!(ok.validate().is_ok());
        let err = |f: &dyn Fn(&mut GeoStateInput)| {
            let mut s = ok.clone();
            f(&mut s);
            s.validate().unwrap_err().to_string()
        };
        assert!(err(&|s| s.lat = 91.0).contains("`lat`"));
        assert!(err(&|s| s.lon = -180.5).contains("`lon`"));
        assert!(err(&|s| s.speed = Some(-1.0)).contains("`speed`"));
        assert!(err(&|s| s.course = None).contains("`course`"));
        assert!(err(&|s| s.course = Some(361.0)).contains("`course`"));
        assert!(err(&|s| s.alt = Some(f64::NAN)).contains("`alt`"));
        assert!(err(&|s| s.accel = Some(vec![1.0])).contains("`accel`"));
        assert!(err(&|s| s.name = Some("x".repeat(300))).contains("`name`"));
        assert!(
            err(&|s| {
                s.hull = Some(Hull::default());
                s.shape = Some(ShapeInput {
                    half_extents: None,
                    radius: Some(1.0),
                })
            })
            .contains("`hull`")
        );
        assert!(
            err(&|s| s.shape = Some(ShapeInput {
                half_extents: Some(vec![1.0, -1.0]),
                radius: None
            }))
            .contains("box[1]")
        );
        // At rest, course may be omitted.
        let mut s = ok.clone();
        s.speed = None;
        s.course = None;
        assert_eq!(s.validate().unwrap().speed(), 0.0);
    }

    #[test]
    fn hull_footprint_follows_heading() {
        let mut s = GeoStateInput::new("s", 0.0, 40.0, -74.0, 5.0, 90.0);
        // 100 m long, 20 m wide, antenna 30 m from the bow and 5 m from port.
        s.hull = Some(Hull {
            to_bow: 30.0,
            to_stern: 70.0,
            to_port: 5.0,
            to_starboard: 15.0,
        });
        let g = s.validate().unwrap();
        let (shape, offset) = g.footprint();
        // Heading east: long axis east-west; centre 20 m astern (west), 5 m to starboard (south).
        assert!(
            matches!(shape, Shape::Box(w) if (w[0] - 50.0).abs() < 1e-9 && (w[1] - 10.0).abs() < 1e-9)
        );
        assert!((offset[0] + 20.0).abs() < 1e-9 && (offset[1] + 5.0).abs() < 1e-9);
        s.heading = Some(0.0);
        let (shape, offset) = s.validate().unwrap().footprint();
        assert!(
            matches!(shape, Shape::Box(w) if (w[0] - 10.0).abs() < 1e-9 && (w[1] - 50.0).abs() < 1e-9)
        );
        assert!((offset[0] - 5.0).abs() < 1e-9 && (offset[1] + 20.0).abs() < 1e-9);
    }
}
