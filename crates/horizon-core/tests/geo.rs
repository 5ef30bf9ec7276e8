//! Geographic states against an independent geodesic model (GeographicLib), and the tiled
//! frames against a per-pair oracle, across the antimeridian and near the poles.

mod common;

use common::Lcg;
use geographiclib_rs::{DirectGeodesic, Geodesic, InverseGeodesic};
use horizon_core::{Algorithm, GeoState, GeoStateInput, PairFilter, QueryParams, geo_collisions};

fn wrap_lon(lon: f64) -> f64 {
    (lon + 540.0).rem_euclid(360.0) - 180.0
}

/// Our separation of two point objects at `tau`: a query at `T = tau` with no horizon and a
/// margin wide enough to report them gives `min_distance` = the distance at `T`.
fn our_distance(a: &GeoState, b: &GeoState, tau: f64) -> f64 {
    let p = QueryParams::new(tau, 0.0).with_margin(1e7);
    let ans = geo_collisions(&[a, b], &p, &PairFilter::default()).unwrap();
    assert_eq!(ans.pairs.len(), 1);
    ans.pairs[0].contact.min_distance
}

#[test]
fn separations_agree_with_geodesics_within_half_a_percent() {
    let g = Geodesic::wgs84();
    let mut rng = Lcg(7);
    let mut worst: f64 = 0.0;
    let places = [
        (0.0, 0.0),
        (40.6, -74.0),
        (60.0, 179.95),
        (-33.9, -179.99),
        (80.0, 20.0),
        (89.6, 120.0),
        (-89.7, -45.0),
        (-45.0, 170.0),
    ];
    for case in 0..3000 {
        let (lat0, lon0) = places[case % places.len()];
        let lat_a = (lat0 + rng.range(-0.2, 0.2)).clamp(-89.99, 89.99);
        let lon_a = wrap_lon(lon0 + rng.range(-0.2, 0.2));
        let d = rng.range(100.0, 50_000.0);
        let (lat_b, lon_b) = g.direct(lat_a, lon_a, rng.range(0.0, 360.0), d);
        let (va, ca) = (rng.range(0.0, 15.0), rng.range(0.0, 360.0));
        let (vb, cb) = (rng.range(0.0, 15.0), rng.range(0.0, 360.0));
        let tau = rng.range(0.0, 1800.0);
        let a = GeoStateInput::new("a", 0.0, lat_a, wrap_lon(lon_a), va, ca)
            .validate()
            .unwrap();
        let b = GeoStateInput::new("b", 0.0, lat_b, wrap_lon(lon_b), vb, cb)
            .validate()
            .unwrap();
        // The truth: each object travels its distance along the geodesic that starts on
        // its course; the separation is the geodesic between the two end points.
        let (la, lo) = g.direct(lat_a, lon_a, ca, va * tau);
        let (lb, lob) = g.direct(lat_b, lon_b, cb, vb * tau);
        let truth: f64 = g.inverse(la, lo, lb, lob);
        let ours = our_distance(&a, &b, tau);
        if truth < 1.0 {
            continue; // the two nearly coincide: no relative error to speak of
        }
        let err = (ours - truth).abs() / truth;
        worst = worst.max(err);
        assert!(
            err <= 0.005,
            "case {case}: ({lat_a}, {lon_a}) / ({lat_b}, {lon_b}) after {tau:.0} s: ours {ours} m, geodesic {truth} m"
        );
    }
    eprintln!("worst relative error: {worst:e}");
}

fn ship(id: &str, lat: f64, lon: f64, speed: f64, course: f64, radius: f64) -> GeoState {
    let mut s = GeoStateInput::new(id, 0.0, lat, lon, speed, course);
    s.shape = Some(horizon_core::ShapeInput {
        half_extents: None,
        radius: Some(radius),
    });
    s.validate().unwrap()
}

#[test]
fn head_on_across_the_antimeridian_and_over_the_pole() {
    let g = Geodesic::wgs84();
    // Two ships 10 km apart, either side of the antimeridian, closing at 10 m/s each.
    let (lat, lon_b) = g.direct(-16.5, 179.99, 90.0, 10_000.0);
    let a = ship("a", -16.5, 179.99, 10.0, 90.0, 50.0);
    let b = ship("b", lat, wrap_lon(lon_b), 10.0, 270.0, 50.0);
    let p = QueryParams::new(0.0, 3600.0);
    let ans = geo_collisions(&[&a, &b], &p, &PairFilter::default()).unwrap();
    assert_eq!(ans.pairs.len(), 1);
    // Contact when the centres are 100 m apart: (10 000 − 100) / 20 s.
    let t = ans.pairs[0].contact.t_contact;
    assert!((t - 495.0).abs() < 0.5, "t_contact {t}");
    let geo = ans.pairs[0].geo.unwrap();
    assert!(geo.contact.a.lon.abs() > 179.9, "{:?}", geo.contact);

    // One ship 3 km from the North Pole heading north (over the pole), one 3 km beyond it
    // on the other side heading south towards it: they meet at the pole.
    let a = ship("a", 89.973, 0.0, 10.0, 0.0, 20.0);
    let b = ship("b", 89.973, 180.0, 10.0, 0.0, 20.0);
    let ans = geo_collisions(&[&a, &b], &p, &PairFilter::default()).unwrap();
    assert_eq!(ans.pairs.len(), 1);
    let c = ans.pairs[0].contact;
    let d: f64 = g.inverse(89.973, 0.0, 89.973, 180.0);
    assert!(
        (c.t_contact - (d - 40.0) / 20.0).abs() < 1.0,
        "{c:?} vs {d}"
    );
    assert!(ans.pairs[0].geo.unwrap().closest.a.lat > 89.99);
}

/// Objects scattered over hot spots all over the Earth, many tiles apart: the tiled query
/// must find exactly the pairs a per-pair frame finds (up to a hair's width at the
/// threshold), and grid, R-tree and brute force must agree exactly.
#[test]
fn tiled_frames_match_a_per_pair_oracle_worldwide() {
    let mut rng = Lcg(42);
    let spots = [
        (40.6, -74.0),
        (51.0, 1.5),
        (0.0, 179.999),
        (65.0, -179.8),
        (89.9, 0.0),
        (-89.8, 90.0),
        (1.3, 103.8),
        (35.0, 139.0),
    ];
    let mut objects = Vec::new();
    for i in 0..1200 {
        let (lat0, lon0) = spots[i % spots.len()];
        let spread = if i % 3 == 0 { 3.0 } else { 0.3 };
        let lat = (lat0 + rng.range(-spread, spread)).clamp(-89.999, 89.999);
        let lon = wrap_lon(lon0 + rng.range(-spread, spread) / lat.to_radians().cos().max(0.05));
        objects.push(ship(
            &format!("s{i:04}"),
            lat,
            lon,
            rng.range(0.0, 12.0),
            rng.range(0.0, 360.0),
            rng.range(0.0, 200.0),
        ));
    }
    let (h, m) = (1200.0, 100.0);
    let params = QueryParams::new(0.0, h).with_margin(m);
    let f = PairFilter::default();
    let grid = geo_collisions(&objects, &params, &f).unwrap();
    for alg in [Algorithm::Rtree, Algorithm::Brute] {
        let other = geo_collisions(&objects, &params.with_algorithm(alg), &f).unwrap();
        assert_eq!(grid.pairs, other.pairs, "{alg} differs from grid");
    }
    assert!(
        grid.pairs.len() > 50,
        "scene too sparse: {}",
        grid.pairs.len()
    );

    // The oracle: every pair on its own, in a frame of its own (a query of just the two).
    let found: std::collections::HashSet<(String, String)> = grid
        .pairs
        .iter()
        .map(|p| (p.a.clone(), p.b.clone()))
        .collect();
    let wide = QueryParams::new(0.0, h).with_margin(m * 1.01 + 1.0);
    let narrow = QueryParams::new(0.0, h).with_margin(m * 0.99 - 1.0);
    for i in 0..objects.len() {
        for j in i + 1..objects.len() {
            let (a, b) = (&objects[i], &objects[j]);
            if haversine(a.lat_lon(), b.lat_lon()) > 2.0 * (12.0 * h + 300.0) + m + 10_000.0 {
                assert!(!found.contains(&(a.id().into(), b.id().into())));
                continue; // too far apart to meet
            }
            let pair = [a, b];
            let near = geo_collisions(&pair, &wide, &f).unwrap();
            if near.pairs.is_empty() {
                assert!(
                    !found.contains(&(a.id().into(), b.id().into())),
                    "{} {} extra",
                    a.id(),
                    b.id()
                );
                continue;
            }
            let sure = !geo_collisions(&pair, &narrow, &f).unwrap().pairs.is_empty();
            if sure {
                assert!(
                    found.contains(&(a.id().into(), b.id().into())),
                    "{} {} missed",
                    a.id(),
                    b.id()
                );
            }
        }
    }
}

/// Great-circle distance on a 6371 km sphere: only to skip pairs that are far apart.
fn haversine((la1, lo1): (f64, f64), (la2, lo2): (f64, f64)) -> f64 {
    let (p1, p2) = (la1.to_radians(), la2.to_radians());
    let dp = p2 - p1;
    let dl = (lo2 - lo1).to_radians();
    let h = (dp / 2.0).sin().powi(2) + p1.cos() * p2.cos() * (dl / 2.0).sin().powi(2);
    2.0 * 6_371_000.0 * h.sqrt().min(1.0).asin()
}
