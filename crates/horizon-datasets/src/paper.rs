//! The GPCD paper's experimental scene (§4.1, Table 1): soldiers running in a
//! 10000 × 10000 × 50 world, each bounded by a box.
//!
//! The paper names the `zipf` and `City` distributions without defining them; ours are:
//! - **uniform**: positions uniform over the world.
//! - **zipf**: [`ZIPF_CLUSTERS`] cluster centres uniform over the world; an object joins
//!   cluster k with probability ∝ 1/k (Zipf, exponent 1), and lies at a Gaussian offset of
//!   σ = [`ZIPF_SIGMA`] m from its centre (clipped to the world). A few clusters hold most
//!   objects: the skew a grid must survive.
//! - **city**: a Manhattan street grid, a street every [`CITY_BLOCK`] m along x and along y,
//!   each [`CITY_STREET_WIDTH`] m wide. Objects stand on the ground on a random street and
//!   move (and accelerate) along it, in either direction.
//!
//! Velocities: speed uniform in [0, vmax], heading uniform, and in the uniform and zipf
//! scenes a slight climb or descent (|pitch| ≤ 0.1 rad) since the world is 3D. Nonlinear
//! motion adds a constant acceleration of magnitude uniform in [0, amax], direction random.

use horizon_core::StateInput;
use rayon::prelude::*;

use crate::rng::SplitMix64;

/// World size (m), as in the paper.
pub const WORLD: [f64; 3] = [10_000.0, 10_000.0, 50.0];
/// Number of zipf clusters.
pub const ZIPF_CLUSTERS: usize = 100;
/// Spread of a zipf cluster (m).
pub const ZIPF_SIGMA: f64 = 200.0;
/// Street spacing in the city scene (m).
pub const CITY_BLOCK: f64 = 100.0;
/// Street width in the city scene (m).
pub const CITY_STREET_WIDTH: f64 = 10.0;

/// Where objects are placed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Distribution {
    /// Uniform over the world.
    #[default]
    Uniform,
    /// Zipf-sized Gaussian clusters.
    Zipf,
    /// On the streets of a grid city.
    City,
}

/// How objects move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Motion {
    /// Constant velocity.
    #[default]
    Linear,
    /// Constant acceleration.
    Nonlinear,
}

/// The scene's parameters; `Default` is Table 1's defaults (n = 2k, vmax 3, amax 0.5).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PaperScene {
    /// Number of objects.
    pub n: usize,
    /// Maximum speed (m/s).
    pub vmax: f64,
    /// Maximum acceleration (m/s²), used with [`Motion::Nonlinear`].
    pub amax: f64,
    /// Linear or nonlinear motion.
    pub motion: Motion,
    /// Placement.
    pub distribution: Distribution,
    /// Seed: the same seed gives the same scene, object for object.
    pub seed: u64,
}

impl Default for PaperScene {
    fn default() -> Self {
        PaperScene {
            n: 2000,
            vmax: 3.0,
            amax: 0.5,
            motion: Motion::Linear,
            distribution: Distribution::Uniform,
            seed: 1,
        }
    }
}

impl PaperScene {
    /// Every object, in id order.
    pub fn generate(&self) -> Vec<StateInput> {
        let clusters = self.clusters();
        (0..self.n)
            .into_par_iter()
            .map(|i| self.object(i, &clusters))
            .collect()
    }

    /// Objects `range` only, for writing big scenes in chunks.
    pub fn generate_range(&self, range: std::ops::Range<usize>) -> Vec<StateInput> {
        let clusters = self.clusters();
        range
            .into_par_iter()
            .map(|i| self.object(i, &clusters))
            .collect()
    }

    /// Zipf cluster centres and the cumulative weights to pick one.
    fn clusters(&self) -> Clusters {
        let mut g = SplitMix64::for_item(self.seed, u64::MAX);
        let centres = (0..ZIPF_CLUSTERS)
            .map(|_| [g.range(0.0, WORLD[0]), g.range(0.0, WORLD[1])])
            .collect();
        let mut cdf = Vec::with_capacity(ZIPF_CLUSTERS);
        let mut acc = 0.0;
        for k in 1..=ZIPF_CLUSTERS {
            acc += 1.0 / k as f64;
            cdf.push(acc);
        }
        Clusters { centres, cdf }
    }

    fn object(&self, i: usize, clusters: &Clusters) -> StateInput {
        let mut g = SplitMix64::for_item(self.seed, i as u64);
        // Soldier-sized: about 0.6 × 0.6 × 1.8 m.
        let half = [g.range(0.25, 0.35), g.range(0.25, 0.35), g.range(0.8, 0.95)];
        let speed = g.range(0.0, self.vmax);
        let heading = g.range(0.0, std::f64::consts::TAU);
        let pitch = g.range(-0.1, 0.1);
        let mut dir = [
            heading.cos() * pitch.cos(),
            heading.sin() * pitch.cos(),
            pitch.sin(),
        ];
        let p = match self.distribution {
            Distribution::Uniform => [
                g.range(0.0, WORLD[0]),
                g.range(0.0, WORLD[1]),
                g.range(0.0, WORLD[2]),
            ],
            Distribution::Zipf => {
                let u = g.unit() * clusters.cdf[ZIPF_CLUSTERS - 1];
                let k = clusters
                    .cdf
                    .partition_point(|&c| c < u)
                    .min(ZIPF_CLUSTERS - 1);
                let c = clusters.centres[k];
                [
                    (c[0] + ZIPF_SIGMA * g.normal()).clamp(0.0, WORLD[0]),
                    (c[1] + ZIPF_SIGMA * g.normal()).clamp(0.0, WORLD[1]),
                    g.range(0.0, WORLD[2]),
                ]
            }
            Distribution::City => {
                let streets = (WORLD[0] / CITY_BLOCK) as u64 + 1;
                let street = g.below(streets) as f64 * CITY_BLOCK;
                let along = g.range(0.0, WORLD[0]);
                let across = (street + g.range(-0.5, 0.5) * CITY_STREET_WIDTH).clamp(0.0, WORLD[1]);
                let sign = if g.unit() < 0.5 { -1.0 } else { 1.0 };
                if g.unit() < 0.5 {
                    dir = [sign, 0.0, 0.0];
                    [along, across, half[2]]
                } else {
                    dir = [0.0, sign, 0.0];
                    [across, along, half[2]]
                }
            }
        };
        let v = dir.map(|d| d * speed);
        let mut s = StateInput::new(format!("o{i}"), 0.0, &p, &v).with_box(&half);
        if self.motion == Motion::Nonlinear {
            let mag = g.range(0.0, self.amax);
            let a = if self.distribution == Distribution::City {
                // Along the street: speeding up or braking.
                let sign = if g.unit() < 0.5 { -1.0 } else { 1.0 };
                dir.map(|d| d * sign * mag)
            } else {
                let h = g.range(0.0, std::f64::consts::TAU);
                let e = g.range(-0.1, 0.1);
                [
                    mag * h.cos() * e.cos(),
                    mag * h.sin() * e.cos(),
                    mag * e.sin(),
                ]
            };
            s = s.with_accel(&a);
        }
        s
    }
}

struct Clusters {
    centres: Vec<[f64; 2]>,
    cdf: Vec<f64>,
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn same_seed_same_scene_and_ranges_agree() {
        let s = PaperScene {
            n: 500,
            distribution: Distribution::Zipf,
            motion: Motion::Nonlinear,
            ..Default::default()
        };
        let a = s.generate();
        assert_eq!(a, s.generate());
        assert_eq!(&a[100..200], s.generate_range(100..200).as_slice());
        let other = PaperScene { seed: 2, ..s }.generate();
        assert_ne!(a, other);
    }

    #[test]
    fn objects_are_valid_inside_the_world_and_obey_limits() {
        for distribution in [
            Distribution::Uniform,
            Distribution::Zipf,
            Distribution::City,
        ] {
            for motion in [Motion::Linear, Motion::Nonlinear] {
                let s = PaperScene {
                    n: 2000,
                    distribution,
                    motion,
                    ..Default::default()
                };
                for o in s.generate() {
                    let st = o.validate().unwrap();
                    let (p, v, a) = (st.position(), st.velocity(), st.acceleration());
                    for j in 0..3 {
                        assert!((0.0..=WORLD[j]).contains(&p[j]), "{distribution:?} {p:?}");
                    }
                    let norm = |x: [f64; 3]| x.iter().map(|c| c * c).sum::<f64>().sqrt();
                    assert!(norm(v) <= s.vmax + 1e-9);
                    assert!(norm(a) <= s.amax + 1e-9);
                    assert_eq!(
                        motion == Motion::Linear,
                        norm(a) == 0.0 || o.accel.is_none()
                    );
                    if distribution == Distribution::City {
                        // Moving along one street axis only.
                        assert!(v[0] == 0.0 || v[1] == 0.0);
                    }
                }
            }
        }
    }

    #[test]
    fn zipf_is_skewed() {
        let s = PaperScene {
            n: 20000,
            distribution: Distribution::Zipf,
            ..Default::default()
        };
        // The biggest cluster (1/H(100) ≈ 19%) dominates a 1 km square around its centre.
        let objs = s.generate();
        let c = s.clusters().centres[0];
        let near = objs
            .iter()
            .filter(|o| (o.p[0] - c[0]).abs() < 500.0 && (o.p[1] - c[1]).abs() < 500.0)
            .count();
        assert!(near > 2000, "{near}");
    }
}
