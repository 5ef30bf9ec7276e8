//! Criterion micro-benchmarks of the hot pieces: swept boxes, the grid build, the pair
//! solver, and whole queries. Seeded scenes: the numbers compare across commits.
//!
//! `cargo bench -p horizon-bench` (add `-- grid` to filter).

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use horizon_core::internals::{grid_build, swept_boxes};
use horizon_core::{
    Algorithm, ContactOptions, GridParams, ObjectState, QueryParams, StateInput, collisions,
    pair_contact,
};
use horizon_datasets::{Motion, PaperScene};

fn scene(n: usize, motion: Motion) -> Vec<ObjectState> {
    PaperScene {
        n,
        motion,
        seed: 42,
        ..Default::default()
    }
    .generate()
    .iter()
    .map(|s| s.validate().expect("generated states are valid"))
    .collect()
}

fn preparation(c: &mut Criterion) {
    let states = scene(100_000, Motion::Nonlinear);
    c.bench_function("swept_boxes/100k", |b| {
        b.iter(|| swept_boxes(black_box(&states), 0.0, 3.0, 0.0))
    });
    c.bench_function("grid_build/100k", |b| {
        b.iter(|| grid_build(black_box(&states), 0.0, 3.0, 0.0, GridParams::default()))
    });
}

fn pair_solver(c: &mut Criterion) {
    let st = |s: StateInput| s.validate().expect("valid");
    let cases = [
        (
            "boxes_linear",
            st(
                StateInput::new("a", 0.0, &[0.0, 0.0, 0.0], &[1.0, 0.2, 0.0])
                    .with_box(&[0.3, 0.3, 0.9]),
            ),
            st(
                StateInput::new("b", 0.0, &[5.0, 0.5, 0.1], &[-1.0, 0.0, 0.0])
                    .with_box(&[0.3, 0.3, 0.9]),
            ),
            0.0,
        ),
        (
            "spheres_linear_margin",
            st(StateInput::new("a", 0.0, &[0.0, 0.0], &[1.0, 0.0]).with_radius(1.0)),
            st(StateInput::new("b", 0.0, &[10.0, 2.5], &[-1.0, 0.0]).with_radius(1.0)),
            0.7,
        ),
        (
            "box_sphere_quadratic_margin",
            st(
                StateInput::new("a", 0.0, &[0.0, 0.0, 0.0], &[1.0, 0.0, 0.0])
                    .with_accel(&[0.0, 0.5, 0.0])
                    .with_box(&[1.0, 0.5, 0.5]),
            ),
            st(
                StateInput::new("b", 0.0, &[6.0, 2.0, 0.0], &[-1.0, 0.0, 0.0])
                    .with_accel(&[0.0, -0.2, 0.1])
                    .with_radius(0.5),
            ),
            0.25,
        ),
        (
            "miss_pruned_by_time_window",
            st(StateInput::new("a", 0.0, &[0.0, 0.0], &[1.0, 0.0]).with_radius(1.0)),
            st(StateInput::new("b", 0.0, &[0.0, 50.0], &[1.0, 0.0]).with_radius(1.0)),
            0.0,
        ),
    ];
    for (name, a, b, m) in &cases {
        let opts = ContactOptions::new(0.0, 10.0).with_margin(*m);
        c.bench_function(&format!("pair_contact/{name}"), |bch| {
            bch.iter(|| pair_contact(black_box(a), black_box(b), &opts))
        });
    }
}

fn queries(c: &mut Criterion) {
    let states = scene(100_000, Motion::Linear);
    let mut g = c.benchmark_group("collisions/100k");
    g.sample_size(20);
    for alg in [Algorithm::Grid, Algorithm::Rtree] {
        let p = QueryParams::new(0.0, 3.0).with_algorithm(alg);
        g.bench_function(alg.name(), |b| {
            b.iter(|| collisions(black_box(&states), &p))
        });
    }
    g.finish();
}

criterion_group!(benches, preparation, pair_solver, queries);
criterion_main!(benches);
