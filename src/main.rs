//! `horizondb`: the command-line entry point. Thin: parses arguments and dispatches.

mod bench_cmd;
mod client;
mod collide;
mod conflicts_cmd;
mod feed_cmd;
mod gen_cmd;
mod load;
mod serve;
mod table;
mod watch_load;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// HorizonDB: which moving objects will collide within a horizon, and exactly when.
#[derive(Debug, Parser)]
#[command(name = "horizondb", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the database server: durable storage and the HTTP API.
    Serve(serve::ServeArgs),
    /// Find every pair in a file of states that comes into contact within the horizon.
    Collide(collide::CollideArgs),
    /// Write a GPCD paper scene (Table 1) as NDJSON states.
    Gen(gen_cmd::GenArgs),
    /// Reproduce the GPCD paper's experiments: grid vs R-tree vs brute force, tables and plots.
    Bench(bench_cmd::BenchArgs),
    /// Load a running server: ingest a generated scene in batches, then time queries.
    Load(load::LoadArgs),
    /// Send a feed file (AIS or generic CSV) to a running server.
    Ingest(feed_cmd::IngestArgs),
    /// Play a recorded feed into a running server in accelerated real time.
    Replay(feed_cmd::ReplayArgs),
    /// Replay a recording offline and list the alarm episodes a monitor would have raised.
    Conflicts(conflicts_cmd::ConflictsArgs),
    /// Measure a running server's watch latency: updates at a steady rate, time to event.
    LoadWatch(watch_load::LoadWatchArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Serve(args) => serve::run(args),
        Command::Collide(args) => collide::run(args),
        Command::Gen(args) => gen_cmd::run(args),
        Command::Load(args) => load::run(args),
        Command::Bench(args) => bench_cmd::run(args),
        Command::Ingest(args) => feed_cmd::ingest(args),
        Command::Replay(args) => feed_cmd::replay(args),
        Command::Conflicts(args) => conflicts_cmd::run(args),
        Command::LoadWatch(args) => watch_load::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
