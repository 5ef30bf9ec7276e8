//! # horizon-datasets
//!
//! Scenes for HorizonDB: the GPCD paper's seeded generators ([`PaperScene`]) and readers
//! and writers of object states as NDJSON or JSON arrays ([`parse_states`], [`write_ndjson`]).
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod feeds;
mod load;
mod paper;
mod rng;

pub use load::{
    LoadError, LoadErrorKind, Loaded, parse_array, parse_ndjson, parse_one, parse_states,
    write_ndjson,
};
pub use paper::{
    CITY_BLOCK, CITY_STREET_WIDTH, Distribution, Motion, PaperScene, WORLD, ZIPF_CLUSTERS,
    ZIPF_SIGMA,
};
pub use rng::SplitMix64;
