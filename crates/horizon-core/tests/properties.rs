//! Property tests: every broad phase returns exactly the brute-force answer, and the exact
//! solver agrees with dense time sampling of the gap.

use horizon_core::{
    Algorithm, Answer, ContactOptions, GridParams, ObjectState, QueryParams, StateInput,
    collisions, collisions_of, gap_at, pair_contact,
};
use proptest::prelude::*;

/// How a scene's objects are laid out and move.
#[derive(Debug, Clone, Copy)]
struct SceneKind {
    dims: usize,
    /// Half-width of the region positions are drawn from.
    spread: f64,
    /// Acceleration on (quadratic motion) or off (linear).
    accel: bool,
    /// 0: points, 1: spheres, 2: boxes, 3: mixed.
    shapes: u8,
    /// Positions snapped to integers and extents to halves: exact touching contacts.
    lattice: bool,
}

fn kind() -> impl Strategy<Value = SceneKind> {
    (
        prop_oneof![Just(2usize), Just(3usize)],
        prop_oneof![Just(3.0), Just(20.0), Just(200.0)],
        any::<bool>(),
        0u8..4,
        prop::bool::weighted(0.25),
    )
        .prop_map(|(dims, spread, accel, shapes, lattice)| SceneKind {
            dims,
            spread,
            accel,
            shapes,
            lattice,
        })
}

fn object(k: SceneKind) -> impl Strategy<Value = StateInput> {
    let d = k.dims;
    (
        prop::collection::vec(-k.spread..k.spread, d),
        prop::collection::vec(-5.0..5.0f64, d),
        prop::collection::vec(-2.0..2.0f64, d),
        prop::collection::vec(0.0..2.5f64, d),
        0.0..2.5f64,
        0u8..3,
        -2.0..1.0f64,
        prop::bool::weighted(0.05),
    )
        .prop_map(move |(p, v, a, w, r, which, dt, fast)| {
            let snap = |x: f64| if k.lattice { x.round() } else { x };
            let p: Vec<f64> = p.into_iter().map(snap).collect();
            // A few objects move 100x faster than the rest.
            let v: Vec<f64> = v
                .into_iter()
                .map(|x| snap(if fast { 100.0 * x } else { x }))
                .collect();
            let t = if k.lattice { 0.0 } else { dt };
            let mut s = StateInput::new("", t, &p, &v);
            if k.accel {
                s = s.with_accel(&a.iter().map(|x| snap(*x)).collect::<Vec<_>>());
            }
            let half = |x: f64| {
                if k.lattice {
                    (2.0 * x).round() / 2.0
                } else {
                    x
                }
            };
            let shape = if k.shapes == 3 { which } else { k.shapes };
            match shape {
                0 => s,
                1 => s.with_radius(half(r)),
                _ => s.with_box(&w.into_iter().map(half).collect::<Vec<_>>()),
            }
        })
}

fn scene() -> impl Strategy<Value = (Vec<ObjectState>, f64, f64, f64)> {
    kind().prop_flat_map(|k| {
        (
            prop::collection::vec(object(k), 2..60),
            prop_oneof![Just(0.0), 0.0..10.0f64, Just(3.0)],
            prop_oneof![Just(0.0), 0.0..3.0f64],
            -1.0..1.0f64,
        )
            .prop_map(move |(objs, h, m, at)| {
                let states = objs
                    .into_iter()
                    .enumerate()
                    .map(|(i, mut s)| {
                        // Ids out of index order, so orientation by id is exercised.
                        s.id = format!("id{:03}", (i * 617) % 1000);
                        s.validate().unwrap()
                    })
                    .collect();
                let at = if k.lattice { 0.0 } else { at };
                (states, at, h, m)
            })
    })
}

fn run(states: &[ObjectState], p: QueryParams) -> Answer {
    collisions(states, &p).unwrap()
}

/// Grid variants that force every code path: the default, tiny and huge cells, everything
/// over the cell cap (the large-object R-tree), and every cell crowded (the sweep).
fn variants(base: QueryParams) -> Vec<(String, QueryParams)> {
    let g = GridParams::default();
    let grid = |name: &str, gp: GridParams| (name.to_string(), base.with_grid(gp));
    vec![
        grid("grid", g),
        grid(
            "grid c=0.25",
            GridParams {
                cell_scale: [0.25; 3],
                ..g
            },
        ),
        grid(
            "grid c=4",
            GridParams {
                cell_scale: [4.0, 0.5, 2.0],
                ..g
            },
        ),
        grid(
            "grid all large",
            GridParams {
                max_cells_per_object: 1,
                cell_scale: [0.3; 3],
                ..g
            },
        ),
        grid(
            "grid some large",
            GridParams {
                max_cells_per_object: 4,
                cell_scale: [0.5; 3],
                ..g
            },
        ),
        grid(
            "grid crowded",
            GridParams {
                crowded_cell: 2,
                cell_scale: [8.0; 3],
                ..g
            },
        ),
        ("rtree".to_string(), base.with_algorithm(Algorithm::Rtree)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn every_broad_phase_returns_the_brute_force_answer((states, at, h, m) in scene()) {
        let base = QueryParams::new(at, h).with_margin(m);
        let oracle = run(&states, base.with_algorithm(Algorithm::Brute));
        for (name, p) in variants(base) {
            let got = run(&states, p);
            prop_assert_eq!(&got.pairs, &oracle.pairs, "{} differs from brute force", name);
            prop_assert_eq!(got.stats.pairs_found, oracle.pairs.len() as u64);
            // Each pair whose swept boxes overlap reaches the narrow phase exactly once: a
            // pair tested twice (or skipped) would change these counts.
            prop_assert_eq!(got.stats.pruned_time_interval, oracle.stats.pruned_time_interval, "{}", name);
            prop_assert_eq!(got.stats.exact_solves, oracle.stats.exact_solves, "{}", name);
        }
        // One object against all: exactly its pairs from the all-pairs answer.
        let target = states.len() / 2;
        let id = states[target].id();
        let mine: Vec<_> = oracle.pairs.iter().filter(|p| p.a == id || p.b == id).cloned().collect();
        prop_assert_eq!(collisions_of(&states, target, &base, &Default::default()).unwrap().pairs, mine);
        // Answer order: t_contact, then a, then b; and a < b.
        for w in oracle.pairs.windows(2) {
            let key = |p: &horizon_core::CollisionPair| (p.contact.t_contact, p.a.clone(), p.b.clone());
            prop_assert!(key(&w[0]) <= key(&w[1]));
        }
        for p in &oracle.pairs {
            prop_assert!(p.a < p.b);
            prop_assert!(p.contact.t_contact >= at && p.contact.t_separation <= at + h);
            prop_assert!(p.contact.t_contact <= p.contact.t_separation);
            prop_assert!(p.contact.min_distance >= 0.0 && p.contact.min_distance <= m + 1e-9 * (1.0 + m));
        }
    }

    #[test]
    fn input_order_does_not_change_the_answer((states, at, h, m) in scene(), rot in 0usize..60) {
        let base = QueryParams::new(at, h).with_margin(m);
        let a = run(&states, base);
        let mut shuffled = states.clone();
        shuffled.reverse();
        let k = rot % shuffled.len();
        shuffled.rotate_left(k);
        let b = run(&shuffled, base);
        prop_assert_eq!(a.pairs.len(), b.pairs.len());
        let mut bp = b.pairs.clone();
        bp.sort_by(|x, y| (&x.a, &x.b).cmp(&(&y.a, &y.b)));
        let mut ap = a.pairs.clone();
        ap.sort_by(|x, y| (&x.a, &x.b).cmp(&(&y.a, &y.b)));
        for (x, y) in ap.iter().zip(&bp) {
            prop_assert_eq!((&x.a, &x.b), (&y.a, &y.b));
            let (cx, cy) = (x.contact, y.contact);
            for (p, q) in [(cx.t_contact, cy.t_contact), (cx.t_separation, cy.t_separation),
                           (cx.min_distance, cy.min_distance), (cx.t_min_distance, cy.t_min_distance)] {
                // Tangent contacts are ill-conditioned in time (√ulp); others agree to 1e-9.
                prop_assert!((p - q).abs() <= 1e-6 * (1.0 + p.abs()), "{:?} vs {:?}", cx, cy);
            }
        }
    }
}

/// One random pair for the sampling test.
fn pair() -> impl Strategy<Value = (ObjectState, ObjectState, f64, f64)> {
    kind().prop_flat_map(|k| {
        let k = SceneKind {
            spread: 12.0,
            lattice: false,
            ..k
        };
        (
            object(k),
            object(k),
            0.0..8.0f64,
            prop_oneof![Just(0.0), 0.0..2.0f64],
        )
            .prop_map(|(mut a, mut b, h, m)| {
                a.id = "a".into();
                b.id = "b".into();
                (a.validate().unwrap(), b.validate().unwrap(), h, m)
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn solver_agrees_with_dense_sampling((a, b, h, m) in pair()) {
        let opts = ContactOptions::new(0.0, h).with_margin(m);
        let got = pair_contact(&a, &b, &opts).unwrap();
        // Numbers here are up to ~1e3 (100x-fast objects): sampled gaps are exact to ~1e-12.
        let delta = 1e-7;
        let samples = 4000;
        let times: Vec<f64> = (0..=samples).map(|i| h * i as f64 / samples as f64).collect();
        let gaps: Vec<f64> = times.iter().map(|&s| gap_at(&a, &b, s)).collect();
        match got {
            None => {
                for (s, g) in times.iter().zip(&gaps) {
                    prop_assert!(*g > m - delta, "missed: gap {} at {} but no contact", g, s);
                }
            }
            Some(c) => {
                prop_assert!(c.t_contact >= 0.0 && c.t_contact <= c.t_separation && c.t_separation <= h);
                prop_assert!(gap_at(&a, &b, c.t_contact) <= m + delta, "{:?}", c);
                prop_assert!((gap_at(&a, &b, c.t_min_distance) - c.min_distance).abs() <= delta, "{:?}", c);
                for (s, g) in times.iter().zip(&gaps) {
                    prop_assert!(c.min_distance <= g + delta, "min {} > sampled {} at {}", c.min_distance, g, s);
                    if *g < m - delta {
                        prop_assert!(c.t_contact <= *s, "contact {} after sampled contact at {}", c.t_contact, s);
                    }
                    if *s < c.t_contact {
                        prop_assert!(*g > m - delta, "sampled contact at {} before {:?}", s, c);
                    }
                    if *s >= c.t_contact && *s <= c.t_separation {
                        prop_assert!(*g <= m + delta, "gap {} at {} inside contact {:?}", g, s, c);
                    }
                }
            }
        }
    }
}
