//! WGS84 ellipsoid: geodetic ↔ Earth-centred Earth-fixed (ECEF) coordinates and the local
//! east/north/up basis. Everything geographic goes through ECEF, which has no seam at the
//! antimeridian and no singularity at the poles.

/// Semi-major axis, metres.
const A: f64 = 6_378_137.0;
/// Flattening.
const F: f64 = 1.0 / 298.257_223_563;
/// First eccentricity squared.
const E2: f64 = F * (2.0 - F);
/// Semi-minor axis, metres.
const B: f64 = A * (1.0 - F);

/// A 3-vector.
pub type V3 = [f64; 3];

pub fn add(a: V3, b: V3) -> V3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}
pub fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
pub fn scale(a: V3, k: f64) -> V3 {
    [a[0] * k, a[1] * k, a[2] * k]
}
pub fn dot(a: V3, b: V3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
pub fn norm(a: V3) -> f64 {
    dot(a, a).sqrt()
}

/// The point on the ellipsoid surface (height 0) at this latitude and longitude (degrees).
pub fn to_ecef(lat: f64, lon: f64) -> V3 {
    let (sp, cp) = lat.to_radians().sin_cos();
    let (sl, cl) = lon.to_radians().sin_cos();
    let n = A / (1.0 - E2 * sp * sp).sqrt();
    [n * cp * cl, n * cp * sl, n * (1.0 - E2) * sp]
}

/// Latitude and longitude (degrees) of the surface point below an ECEF point: Bowring's
/// method with two refinements, far below a millimetre for points within 100 km of the surface.
pub fn to_geodetic(p: V3) -> (f64, f64) {
    let [x, y, z] = p;
    let lon = y.atan2(x);
    let r = x.hypot(y);
    let ep2 = (A * A - B * B) / (B * B);
    // Parametric latitude as the first guess, then the geodetic latitude, refined.
    let mut beta = (A * z).atan2(B * r);
    let mut lat = 0.0;
    for _ in 0..3 {
        let (sb, cb) = beta.sin_cos();
        lat = (z + ep2 * B * sb.powi(3)).atan2(r - E2 * A * cb.powi(3));
        beta = ((1.0 - F) * lat.sin()).atan2(lat.cos());
    }
    (lat.to_degrees(), lon.to_degrees())
}

/// Unit vectors east, north and up at this latitude and longitude (degrees), in ECEF.
pub fn enu_basis(lat: f64, lon: f64) -> [V3; 3] {
    let (sp, cp) = lat.to_radians().sin_cos();
    let (sl, cl) = lon.to_radians().sin_cos();
    [
        [-sl, cl, 0.0],
        [-sp * cl, -sp * sl, cp],
        [cp * cl, cp * sl, sp],
    ]
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn geodetic_round_trips_everywhere() {
        for lat in [-90.0, -89.9999, -60.0, -1e-9, 0.0, 12.5, 45.0, 89.99, 90.0] {
            for lon in [-180.0, -179.999, -90.0, 0.0, 33.3, 179.9999] {
                let (la, lo) = to_geodetic(to_ecef(lat, lon));
                assert!((la - lat).abs() < 1e-9, "{lat} {lon}: lat {la}");
                if lat.abs() < 90.0 {
                    let d = (lo - lon + 540.0).rem_euclid(360.0) - 180.0;
                    assert!(d.abs() < 1e-9, "{lat} {lon}: lon {lo}");
                }
            }
        }
    }

    #[test]
    fn basis_is_orthonormal_and_up_is_the_surface_normal_direction() {
        let [e, n, u] = enu_basis(40.7, -74.0);
        for (a, b) in [(e, n), (n, u), (e, u)] {
            assert!(dot(a, b).abs() < 1e-15);
        }
        for a in [e, n, u] {
            assert!((norm(a) - 1.0).abs() < 1e-15);
        }
        // Moving north along the surface increases latitude.
        let p = to_ecef(40.7, -74.0);
        let (lat, _) = to_geodetic(add(p, scale(n, 1000.0)));
        assert!(lat > 40.7);
    }
}
