//! Geographic objects: WGS84 states, the local metric frames the engine answers them in,
//! and latitude/longitude in the answers.
//!
//! ## The frame
//! Each state's horizontal motion is a straight line (a parabola with acceleration) in the
//! plane tangent to the ellipsoid at its reported position, taken in Earth-centred
//! Earth-fixed (ECEF) coordinates. A query groups objects into 200 km tiles of ECEF space
//! and answers each pair in the *local frame* of its first object's tile: the orthographic
//! projection onto the tangent plane at the surface point below the tile's centre (x east,
//! y north, metres) with z = altitude. The projection is linear, so straight lines stay
//! straight and the engine's exact solver applies unchanged. A tile's frame also holds, as
//! guests, every object from the tiles around that could reach one of its objects.
//!
//! ## Error bound
//! The projection shortens a horizontal distance by at most the cosine of its angle to the
//! frame plane, i.e. `1 − cos(D / R)` for a pair `D` metres from the frame's centre. A tile's
//! objects are within about 175 km of its centre and a contact happens within the pair's
//! reach (`speed × h` plus size and margin) of them: for reaches up to 100 km, `D` < 275 km
//! and the error is under 0.1%; for 450 km (an airliner over 30 minutes), under 0.5%. ECEF
//! has no seam at the antimeridian and no singularity at the poles.

pub(crate) mod frame;
mod state;
pub(crate) mod wgs84;

pub use frame::geo_collisions;
pub use state::{GeoState, GeoStateInput, Hull};

/// A WGS84 position, degrees.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct LatLon {
    /// Latitude.
    pub lat: f64,
    /// Longitude, −180..=180.
    pub lon: f64,
}

impl LatLon {
    /// Straight-line distance between the two surface points, metres: the geodesic to
    /// within 1e-7 relative up to 100 km (it is shorter by about d³ / 24R²).
    pub fn distance(&self, other: &LatLon) -> f64 {
        let (p, q) = (
            wgs84::to_ecef(self.lat, self.lon),
            wgs84::to_ecef(other.lat, other.lon),
        );
        wgs84::norm(wgs84::sub(p, q))
    }
}

/// Where the two objects of a pair are at one instant.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct PairPositions {
    /// Object `a`.
    pub a: LatLon,
    /// Object `b`.
    pub b: LatLon,
}

/// A geographic pair's positions at first contact and at closest approach.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct PairGeo {
    /// At `t_contact`.
    pub contact: PairPositions,
    /// At `t_min_distance`.
    pub closest: PairPositions,
}

impl GeoState {
    /// Latitude and longitude of the footprint's centre at time `s` (the state's motion
    /// extrapolated, as the query sees it).
    pub fn position_at(&self, s: f64) -> LatLon {
        let (lat, lon) = wgs84::to_geodetic(self.ecef_motion().at(s - self.t()));
        LatLon { lat, lon }
    }

    /// Altitude at time `s` (0 for surface objects).
    pub fn alt_at(&self, s: f64) -> f64 {
        let [z, vz, az] = self.ecef_motion().z;
        let dt = s - self.t();
        z + vz * dt + 0.5 * az * dt * dt
    }
}
