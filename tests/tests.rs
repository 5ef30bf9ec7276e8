//! End-to-end tests of the `horizondb` binary. One test binary; new tests go in:
//! - `browser`: the monitor page in chromium (ignored unless run with `--ignored`, as `.ci/run` does);
//! - `cli_bench`: `horizondb bench --quick` (the CI smoke run of the benchmark);
//! - `cli_collide`: `horizondb collide` answers, formats and input errors;
//! - `cli_gen`: `horizondb gen` scenes;
//! - `harbor`: the NY Harbor AIS hour replayed into a server, against an independent oracle;
//! - `watch`: `GET /v1/watch` server-sent events against fresh queries;
//! - `server`: `horizondb serve` over HTTP: ingest, queries, kill -9, torn logs, TTL.

mod browser;
mod cli_bench;
mod cli_collide;
mod cli_gen;
mod harbor;
mod server;
mod util;
mod watch;
