//! End-to-end tests of the `horizondb` binary. One test binary; new tests go in:
//! - `cli_collide`: `horizondb collide` answers, formats and input errors;
//! - `cli_gen`: `horizondb gen` scenes.

mod cli_collide;
mod cli_gen;
mod util;
