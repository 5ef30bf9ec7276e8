//! End-to-end tests of the `horizondb` binary. One test binary; new tests go in:
//! - `cli_bench`: `horizondb bench --quick` (the CI smoke run of the benchmark);
//! - `cli_collide`: `horizondb collide` answers, formats and input errors;
//! - `cli_gen`: `horizondb gen` scenes;
//! - `server`: `horizondb serve` over HTTP: ingest, queries, kill -9, torn logs, TTL.

mod cli_bench;
mod cli_collide;
mod cli_gen;
mod server;
mod util;
