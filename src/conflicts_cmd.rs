//! `horizondb conflicts`: a recording replayed offline through the monitor's eyes. Every
//! `step` seconds of recorded time the latest report of each object is queried, and each
//! run of consecutive steps in which a pair is predicted to meet is one alarm episode —
//! what an operator would have seen, and how early.

use std::collections::BTreeMap;
use std::path::PathBuf;

use clap::Args;
use horizon_core::{
    CollisionPair, GeoState, Object, PairFilter, QueryParams, ShapeInput, query_objects,
};
use serde::Serialize;

use crate::feed_cmd::{FeedFormat, bar, parse_time, read_file};

#[derive(Debug, Args)]
#[command(allow_negative_numbers = true)]
pub struct ConflictsArgs {
    /// The recording: CSV or AIS sentences.
    file: PathBuf,
    /// Its format.
    #[arg(long, value_enum, default_value_t = FeedFormat::Auto)]
    format: FeedFormat,
    /// Horizon of each prediction, seconds.
    #[arg(long)]
    horizon: f64,
    /// Safety margin, metres.
    #[arg(long, default_value_t = 0.0)]
    margin: f64,
    /// Recorded seconds between predictions.
    #[arg(long, default_value_t = 10.0)]
    step: f64,
    /// Leave out reports older than this many seconds at each prediction.
    #[arg(long)]
    max_age: Option<f64>,
    /// Ignore pairs in which both objects are slower than this (m/s).
    #[arg(long, default_value_t = 0.0)]
    min_speed: f64,
    /// Statuses (comma-separated) that count as slow, e.g. `moored,at_anchor`.
    #[arg(long, value_delimiter = ',')]
    exclude_status: Vec<String>,
    /// Give every object this box (half-extents east,north[,up] metres) instead of its own
    /// shape: e.g. aircraft separation minima.
    #[arg(long, value_delimiter = ',')]
    r#box: Option<Vec<f64>>,
    /// Leave out reports without an altitude (aircraft on the ground).
    #[arg(long)]
    airborne: bool,
    /// Leave out reports below this altitude, metres (implies --airborne).
    #[arg(long)]
    min_alt: Option<f64>,
    /// Also check each episode against a cylinder, `RADIUS,HALF_HEIGHT` metres: does the pair
    /// come within RADIUS horizontally while within HALF_HEIGHT vertically (sampled each
    /// second of its predicted contact)? Measures how close a box approximates a cylinder.
    #[arg(long, value_delimiter = ',')]
    cylinder: Option<Vec<f64>>,
    /// Stop at this recorded time (UTC or unix seconds).
    #[arg(long)]
    until: Option<String>,
    /// Print every episode as JSON instead of a summary.
    #[arg(long)]
    json: bool,
}

/// One alarm episode.
#[derive(Debug, Clone, Serialize)]
struct Episode {
    a: String,
    b: String,
    name_a: Option<String>,
    name_b: Option<String>,
    /// Recorded time of the first prediction.
    first_predicted: f64,
    /// Recorded time of the last step that still predicted it.
    last_predicted: f64,
    /// The contact time predicted at the first prediction.
    predicted_contact: f64,
    /// Smallest predicted gap over the episode, metres.
    min_distance: f64,
    /// Steps that predicted it.
    steps: usize,
    /// With `--cylinder`: whether some prediction also breaks the cylinder.
    cylinder: Option<bool>,
}

pub fn run(args: ConflictsArgs) -> Result<(), String> {
    if !(args.step.is_finite() && args.step > 0.0) {
        return Err("--step must be a number > 0".into());
    }
    if args
        .r#box
        .as_ref()
        .is_some_and(|b| !(2..=3).contains(&b.len()))
    {
        return Err("--box takes 2 or 3 half-extents: east,north[,up]".into());
    }
    if args.cylinder.as_ref().is_some_and(|c| c.len() != 2) {
        return Err("--cylinder takes RADIUS,HALF_HEIGHT".into());
    }
    let until = args.until.as_deref().map(parse_time).transpose()?;
    let text = read_file(&args.file)?;
    let read = args
        .format
        .read(&text)
        .map_err(|e| format!("{}: {e}", args.file.display()))?;
    drop(text);
    let mut states = read.states;
    if args.airborne || args.min_alt.is_some() {
        let floor = args.min_alt.unwrap_or(f64::NEG_INFINITY);
        states.retain(|s| s.alt.is_some_and(|a| a >= floor));
    }
    if let Some(b) = &args.r#box {
        for s in &mut states {
            s.hull = None;
            s.shape = Some(ShapeInput {
                half_extents: Some(b.clone()),
                radius: None,
            });
        }
    }
    states.sort_by(|a, b| a.t.total_cmp(&b.t));
    if let Some(u) = until {
        states.retain(|s| s.t <= u);
    }
    let (Some(first), Some(last)) = (states.first(), states.last()) else {
        return Err("no states to replay".into());
    };
    let (t0, t_end) = (first.t, last.t);
    let filter = PairFilter {
        min_speed: args.min_speed,
        passive_status: args.exclude_status.clone(),
        max_age: args.max_age,
        ..PairFilter::default()
    };
    let n_steps = ((t_end - t0) / args.step).floor() as u64 + 1;
    let pb = bar(n_steps, "{bar:40} {pos}/{len} steps {elapsed} {msg}");
    let mut latest: BTreeMap<String, Object> = BTreeMap::new();
    let mut open: BTreeMap<(String, String), Episode> = BTreeMap::new();
    let mut done: Vec<Episode> = Vec::new();
    let (mut next, mut predictions) = (0, 0u64);
    for k in 0..n_steps {
        let at = t0 + k as f64 * args.step;
        while next < states.len() && states[next].t <= at {
            let s = &states[next];
            let o = s
                .validate()
                .map_err(|e| format!("{} at t = {}: {e}", s.id, s.t))?;
            latest.insert(s.id.clone(), o.into());
            next += 1;
        }
        let objects: Vec<&Object> = latest.values().collect();
        let params = QueryParams::new(at, args.horizon).with_margin(args.margin);
        let answer = query_objects(&objects, &params, &filter).map_err(|e| e.to_string())?;
        predictions += answer.pairs.len() as u64;
        let mut still = BTreeMap::new();
        for p in &answer.pairs {
            let key = (p.a.clone(), p.b.clone());
            let mut e = open.remove(&key).unwrap_or_else(|| Episode {
                a: p.a.clone(),
                b: p.b.clone(),
                name_a: latest.get(&p.a).and_then(|o| o.meta().name.clone()),
                name_b: latest.get(&p.b).and_then(|o| o.meta().name.clone()),
                first_predicted: at,
                last_predicted: at,
                predicted_contact: p.contact.t_contact,
                min_distance: p.contact.min_distance,
                steps: 0,
                cylinder: args.cylinder.as_ref().map(|_| false),
            });
            e.last_predicted = at;
            e.steps += 1;
            e.min_distance = e.min_distance.min(p.contact.min_distance);
            if let (Some(c), Some(hit)) = (&args.cylinder, e.cylinder.as_mut())
                && !*hit
            {
                *hit = breaks_cylinder(&latest, p, c[0], c[1]);
            }
            still.insert(key, e);
        }
        done.extend(std::mem::replace(&mut open, still).into_values());
        pb.inc(1);
        pb.set_message(format!("{} episodes", done.len() + open.len()));
    }
    pb.finish_and_clear();
    done.extend(open.into_values());
    done.sort_by(|x, y| {
        x.first_predicted
            .total_cmp(&y.first_predicted)
            .then_with(|| (&x.a, &x.b).cmp(&(&y.a, &y.b)))
    });
    if args.json {
        let v = serde_json::json!({
            "from": t0, "to": t0 + (n_steps - 1) as f64 * args.step, "step": args.step,
            "horizon": args.horizon, "margin": args.margin,
            "objects": latest.len(), "predictions": predictions, "episodes": done,
        });
        println!("{v}");
        return Ok(());
    }
    let fmt_t = horizon_datasets::feeds::format_utc;
    println!(
        "{} objects, {n_steps} predictions every {} s from {} to {} (h = {} s, margin {} m): \
         {} alarm episodes, {predictions} pair-predictions",
        latest.len(),
        args.step,
        fmt_t(t0),
        fmt_t(t0 + (n_steps - 1) as f64 * args.step),
        args.horizon,
        args.margin,
        done.len()
    );
    if args.cylinder.is_some() {
        let hits = done.iter().filter(|e| e.cylinder == Some(true)).count();
        println!("{hits} of {} episodes also break the cylinder", done.len());
    }
    let mut leads: Vec<f64> = done
        .iter()
        .map(|e| e.predicted_contact - e.first_predicted)
        .collect();
    leads.sort_by(f64::total_cmp);
    if let Some(median) = leads.get(leads.len() / 2) {
        println!("median warning time (first prediction to predicted contact): {median:.0} s");
    }
    println!("first predicted       contact in  min gap  steps  pair");
    for e in done.iter().take(40) {
        let name = |id: &str, n: &Option<String>| match n {
            Some(n) => format!("{id} ({n})"),
            None => id.to_string(),
        };
        println!(
            "{}  {:>8.0} s  {:>6.1} m  {:>5}  {} – {}",
            fmt_t(e.first_predicted),
            e.predicted_contact - e.first_predicted,
            e.min_distance,
            e.steps,
            name(&e.a, &e.name_a),
            name(&e.b, &e.name_b)
        );
    }
    if done.len() > 40 {
        println!("... {} more (--json for all)", done.len() - 40);
    }
    Ok(())
}

/// Does the predicted contact of `p` also come within `radius` horizontally while within
/// `half_height` vertically? Sampled every second of the predicted contact interval.
fn breaks_cylinder(
    latest: &BTreeMap<String, Object>,
    p: &CollisionPair,
    radius: f64,
    half_height: f64,
) -> bool {
    let geo = |id: &str| match latest.get(id) {
        Some(Object::Geo(g)) => Some(&**g),
        _ => None,
    };
    let (Some(a), Some(b)): (Option<&GeoState>, Option<&GeoState>) = (geo(&p.a), geo(&p.b)) else {
        return false;
    };
    let (from, to) = (p.contact.t_contact, p.contact.t_separation);
    let n = ((to - from).ceil() as usize).clamp(1, 3600);
    (0..=n).any(|k| {
        let s = from + (to - from) * k as f64 / n as f64;
        a.position_at(s).distance(&b.position_at(s)) <= radius
            && (a.alt_at(s) - b.alt_at(s)).abs() <= half_height
    })
}
