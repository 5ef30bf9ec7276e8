//! `horizondb ingest` and `horizondb replay`: recorded feeds into a running server.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::{Args, ValueEnum};
use horizon_core::GeoStateInput;
use horizon_datasets::feeds::{CsvLayout, FeedRead, NmeaDecoder, format_utc, parse_utc, read_csv};
use indicatif::{ProgressBar, ProgressStyle};

use crate::client::Client;

/// How a feed file is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FeedFormat {
    /// AIS sentences if the file starts with them, else a CSV layout from the header.
    Auto,
    /// AIS NMEA 0183 (`!AIVDM`/`!AIVDO`), one sentence per line, each with a unix time
    /// (tag block `c:`, or before the sentence or after its checksum).
    Nmea,
    /// MarineCadastre AIS CSV (SOG in knots, Length/Width).
    Marinecadastre,
    /// `id,t_unix_seconds,lat,lon,alt_m,speed_mps,course_deg`.
    Generic,
}

impl FeedFormat {
    /// `Auto` made definite for this text (CSV layouts are still detected by the reader).
    fn resolve(self, text: &str) -> FeedFormat {
        let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        match self {
            FeedFormat::Auto if first.contains("VDM,") || first.contains("VDO,") => {
                FeedFormat::Nmea
            }
            other => other,
        }
    }

    fn layout(self) -> Option<CsvLayout> {
        match self {
            FeedFormat::Auto | FeedFormat::Nmea => None,
            FeedFormat::Marinecadastre => Some(CsvLayout::MarineCadastre),
            FeedFormat::Generic => Some(CsvLayout::Generic),
        }
    }
    fn endpoint(self) -> &'static str {
        match self {
            FeedFormat::Auto => "/v1/ingest/csv",
            FeedFormat::Nmea => "/v1/ingest/nmea",
            FeedFormat::Marinecadastre => "/v1/ingest/csv?format=marinecadastre",
            FeedFormat::Generic => "/v1/ingest/csv?format=generic",
        }
    }

    /// Reads the whole file here (for replay).
    pub(crate) fn read(self, text: &str) -> Result<FeedRead, String> {
        match self.resolve(text) {
            FeedFormat::Nmea => Ok(NmeaDecoder::new().decode(text)),
            f => read_csv(text, f.layout()).map_err(|e| e.to_string()),
        }
    }
}

#[derive(Debug, Args)]
pub struct IngestArgs {
    /// The feed file: CSV, or AIS sentences.
    file: PathBuf,
    /// Its layout.
    #[arg(long, value_enum, default_value_t = FeedFormat::Auto)]
    format: FeedFormat,
    /// The server.
    #[arg(long, default_value = "http://127.0.0.1:7878")]
    url: String,
    /// Rows (or sentences) per request.
    #[arg(long, default_value_t = 5000)]
    batch: usize,
}

/// Byte offsets where each record starts, and where the header (if any) ends.
fn record_starts(text: &str, format: FeedFormat) -> Result<(usize, Vec<usize>), String> {
    if format == FeedFormat::Nmea {
        let mut starts = vec![0];
        starts.extend(
            text.match_indices('\n')
                .map(|(i, _)| i + 1)
                .filter(|&i| i < text.len()),
        );
        return Ok((0, starts));
    }
    // A CSV reader finds the boundaries, so a quoted newline never splits a row.
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .from_reader(text.as_bytes());
    reader.byte_headers().map_err(|e| e.to_string())?;
    let header_end = reader.position().byte() as usize;
    let mut starts = Vec::new();
    let mut record = csv::ByteRecord::new();
    loop {
        let at = reader.position().byte() as usize;
        match reader.read_byte_record(&mut record) {
            Ok(true) => starts.push(at),
            Ok(false) => return Ok((header_end, starts)),
            Err(e) => return Err(e.to_string()),
        }
    }
}

pub(crate) fn read_file(path: &PathBuf) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
}

pub(crate) fn bar(len: u64, template: &str) -> ProgressBar {
    let pb = ProgressBar::new(len);
    pb.set_style(
        ProgressStyle::with_template(template)
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    pb
}

/// Posts the file's rows in batches to `POST /v1/ingest/csv`; the server parses and keeps
/// the good rows, and says why it skipped the others.
pub fn ingest(args: IngestArgs) -> Result<(), String> {
    if args.batch == 0 {
        return Err("--batch must be > 0".into());
    }
    let text = read_file(&args.file)?;
    let format = args.format.resolve(&text);
    let (header_end, starts) =
        record_starts(&text, format).map_err(|e| format!("{}: {e}", args.file.display()))?;
    let header = &text[..header_end];
    let client = Client::new(&args.url);
    let pb = bar(
        starts.len() as u64,
        "{bar:40} {pos}/{len} rows {elapsed} {msg}",
    );
    let (mut accepted, mut skipped, mut reasons) = (0, 0, Vec::new());
    for chunk in starts.chunks(args.batch) {
        let end = starts
            .get(starts.partition_point(|&s| s <= chunk[chunk.len() - 1]))
            .copied()
            .unwrap_or(text.len());
        let body = format!("{header}{}", &text[chunk[0]..end]);
        let content_type = if format == FeedFormat::Nmea {
            "text/plain"
        } else {
            "text/csv"
        };
        let v = client.post(format.endpoint(), content_type, body.as_bytes())?;
        accepted += v["accepted"].as_u64().unwrap_or(0);
        skipped += v["skipped"].as_u64().unwrap_or(0);
        if let Some(rs) = v["reasons"].as_array() {
            // Line numbers are per request: make them the file's.
            let before = text[..chunk[0]].matches('\n').count();
            let header_lines = text[..header_end].matches('\n').count();
            reasons.extend(
                rs.iter()
                    .filter_map(|r| r.as_str())
                    .map(|r| shift_line(r, before - header_lines)),
            );
        }
        pb.inc(chunk.len() as u64);
        pb.set_message(format!("clock {}", v["clock"]));
    }
    pb.finish_and_clear();
    println!(
        "{}: {accepted} states accepted, {skipped} records skipped",
        args.file.display()
    );
    for r in reasons.iter().take(20) {
        println!("  skipped {r}");
    }
    Ok(())
}

/// `line N: ...` → `line N + by: ...`.
fn shift_line(reason: &str, by: usize) -> String {
    reason
        .strip_prefix("line ")
        .and_then(|r| r.split_once(':'))
        .and_then(|(n, rest)| Some(format!("line {}:{rest}", n.parse::<usize>().ok()? + by)))
        .unwrap_or_else(|| reason.to_string())
}

#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// The recording: CSV, or AIS sentences.
    file: PathBuf,
    /// Its layout.
    #[arg(long, value_enum, default_value_t = FeedFormat::Auto)]
    format: FeedFormat,
    /// The server.
    #[arg(long, default_value = "http://127.0.0.1:7878")]
    url: String,
    /// Recorded seconds per wall-clock second; 0 sends as fast as the server takes it.
    #[arg(long, default_value_t = 60.0)]
    speed: f64,
    /// Stop after this recorded time (UTC, e.g. 2020-06-30T00:30:00, or unix seconds).
    #[arg(long)]
    until: Option<String>,
    /// Most states per request.
    #[arg(long, default_value_t = 5000)]
    batch: usize,
}

pub(crate) fn parse_time(s: &str) -> Result<f64, String> {
    s.parse::<f64>()
        .ok()
        .or_else(|| parse_utc(s))
        .ok_or_else(|| {
            format!("`{s}` is neither unix seconds nor a UTC time like 2020-06-30T00:30:00")
        })
}

/// Plays a recording into the server in accelerated real time, in recorded order with the
/// recorded timestamps, so the database clock follows the recording.
pub fn replay(args: ReplayArgs) -> Result<(), String> {
    if !(args.speed.is_finite() && args.speed >= 0.0) {
        return Err("--speed must be a finite number >= 0".into());
    }
    if args.batch == 0 {
        return Err("--batch must be > 0".into());
    }
    let until = args.until.as_deref().map(parse_time).transpose()?;
    let text = read_file(&args.file)?;
    let FeedRead {
        mut states,
        skipped,
        reasons,
        ..
    } = args
        .format
        .read(&text)
        .map_err(|e| format!("{}: {e}", args.file.display()))?;
    drop(text);
    if skipped > 0 {
        eprintln!("{skipped} records skipped, e.g. {}", reasons.join("; "));
    }
    // Stable: reports with one timestamp keep their file order.
    states.sort_by(|a, b| a.t.total_cmp(&b.t));
    if let Some(u) = until {
        states.retain(|s| s.t <= u);
    }
    let Some(t0) = states.first().map(|s| s.t) else {
        return Err("nothing to replay".into());
    };
    let client = Client::new(&args.url);
    let pb = bar(
        states.len() as u64,
        "{bar:40} {pos}/{len} states {elapsed} recording {msg}",
    );
    let start = Instant::now();
    let mut next = 0;
    while next < states.len() {
        if args.speed > 0.0 {
            let due = Duration::from_secs_f64((states[next].t - t0) / args.speed);
            if let Some(wait) = due.checked_sub(start.elapsed()) {
                std::thread::sleep(wait);
            }
        }
        // Everything due by now goes in one request.
        let now = if args.speed > 0.0 {
            t0 + start.elapsed().as_secs_f64() * args.speed
        } else {
            f64::INFINITY
        };
        let end = (next + states[next..].partition_point(|s| s.t <= now))
            .max(next + 1)
            .min(next + args.batch);
        post_states(&client, &states[next..end])?;
        pb.set_position(end as u64);
        pb.set_message(format_utc(states[end - 1].t));
        next = end;
    }
    pb.finish_and_clear();
    println!(
        "replayed {} states from {} to {} in {:.1} s",
        states.len(),
        format_utc(t0),
        format_utc(states[states.len() - 1].t),
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

fn post_states(client: &Client, states: &[GeoStateInput]) -> Result<(), String> {
    let mut body = Vec::new();
    for s in states {
        serde_json::to_writer(&mut body, s).map_err(|e| e.to_string())?;
        body.push(b'\n');
    }
    client
        .post("/v1/objects", "application/x-ndjson", &body)
        .map(drop)
}
