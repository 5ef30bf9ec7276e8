//! Reading object states from text: NDJSON (one state per line) or a JSON array.
//!
//! Every error names the line (and for arrays the element) and the field, e.g.
//! `line 7: field \`v[1]\`: invalid type: string "x", expected f64`.

use std::collections::HashSet;
use std::io::Write;

use horizon_core::{ObjectState, StateInput};
use rayon::prelude::*;
use serde_json::value::RawValue;
use thiserror::Error;

/// A state that could not be read.
#[derive(Debug, Clone, PartialEq, Error)]
#[error("{location}: {message}")]
pub struct LoadError {
    /// `line N` or `element N (line L)`.
    pub location: String,
    /// 1-based line of the offending state.
    pub line: usize,
    /// What is wrong, naming the field.
    pub message: String,
}

/// States read from a file.
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded {
    /// One state per id: where an id repeats, the later state replaced the earlier.
    pub states: Vec<ObjectState>,
    /// How many states were replaced by a later one with the same id.
    pub replaced: usize,
}

/// Parses NDJSON or a JSON array (detected by a leading `[`). Blank lines are skipped.
pub fn parse_states(text: &str) -> Result<Loaded, LoadError> {
    let trimmed = text.trim_start();
    let parsed: Vec<Result<ObjectState, LoadError>> = if trimmed.starts_with('[') {
        let elems: Vec<&RawValue> = serde_json::from_str(text).map_err(|e| LoadError {
            location: format!("line {}", e.line()),
            line: e.line(),
            message: format!("not a JSON array of states: {}", strip_position(&e)),
        })?;
        let starts = line_starts(text);
        elems
            .par_iter()
            .enumerate()
            .map(|(k, raw)| {
                let offset = raw.get().as_ptr() as usize - text.as_ptr() as usize;
                let line = starts.partition_point(|&s| s <= offset);
                parse_one(raw.get()).map_err(|message| LoadError {
                    location: format!("element {} (line {line})", k + 1),
                    line,
                    message,
                })
            })
            .collect()
    } else {
        let lines: Vec<(usize, &str)> = text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
            .collect();
        lines
            .par_iter()
            .map(|&(k, l)| {
                parse_one(l).map_err(|message| LoadError {
                    location: format!("line {}", k + 1),
                    line: k + 1,
                    message,
                })
            })
            .collect()
    };
    // Report the first bad state in file order.
    let states = parsed.into_iter().collect::<Result<Vec<_>, _>>()?;
    Ok(keep_latest(states))
}

/// Parses and validates one state; the error names the field.
pub fn parse_one(json: &str) -> Result<ObjectState, String> {
    let mut de = serde_json::Deserializer::from_str(json);
    let input: StateInput = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = e.path().to_string();
        let msg = strip_position(e.inner());
        if matches!(path.as_str(), "" | "." | "?") || msg.starts_with("unknown field") {
            msg
        } else {
            format!("field `{path}`: {msg}")
        }
    })?;
    de.end().map_err(|e| strip_position(&e))?;
    input.validate().map_err(|e| e.to_string())
}

/// Later states replace earlier ones with the same id (DESIGN.md "Objects").
fn keep_latest(states: Vec<ObjectState>) -> Loaded {
    let n = states.len();
    let mut seen = HashSet::with_capacity(n);
    let mut keep = vec![false; n];
    for (i, s) in states.iter().enumerate().rev() {
        keep[i] = seen.insert(s.id());
    }
    drop(seen);
    let states: Vec<ObjectState> = states
        .into_iter()
        .zip(keep)
        .filter_map(|(s, k)| k.then_some(s))
        .collect();
    Loaded {
        replaced: n - states.len(),
        states,
    }
}

/// serde_json appends "at line L column C", which would be confusing inside one NDJSON line.
fn strip_position(e: &serde_json::Error) -> String {
    let s = e.to_string();
    match s.rfind(" at line ") {
        Some(i) if e.line() > 0 => format!("{} (column {})", &s[..i], e.column()),
        _ => s,
    }
}

fn line_starts(text: &str) -> Vec<usize> {
    std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect()
}

/// Writes states as NDJSON, one per line.
pub fn write_ndjson(mut w: impl Write, states: &[StateInput]) -> std::io::Result<()> {
    let mut buf = Vec::with_capacity(states.len() * 160);
    for s in states {
        serde_json::to_writer(&mut buf, s).map_err(std::io::Error::other)?;
        buf.push(b'\n');
    }
    w.write_all(&buf)
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn ndjson_and_arrays() {
        let nd = "{\"id\":\"a\",\"t\":0,\"p\":[0,0],\"v\":[1,0]}\n\n{\"id\":\"b\",\"t\":1,\"p\":[5,0,1],\"v\":[0,0,0],\"shape\":{\"radius\":1}}\n";
        let l = parse_states(nd).unwrap();
        assert_eq!(l.states.len(), 2);
        assert_eq!(l.states[1].id(), "b");
        let arr = format!(
            "[\n{},\n{}\n]",
            nd.lines().next().unwrap(),
            nd.lines().nth(2).unwrap()
        );
        assert_eq!(parse_states(&arr).unwrap(), l);
    }

    #[test]
    fn later_states_replace_earlier_ones() {
        let nd = "{\"id\":\"a\",\"t\":0,\"p\":[0,0]}\n{\"id\":\"b\",\"t\":0,\"p\":[1,0]}\n{\"id\":\"a\",\"t\":5,\"p\":[9,9]}\n";
        let l = parse_states(nd).unwrap();
        assert_eq!(l.replaced, 1);
        let ids: Vec<_> = l.states.iter().map(|s| (s.id(), s.t())).collect();
        assert_eq!(ids, [("b", 0.0), ("a", 5.0)]);
    }

    fn err(text: &str) -> String {
        parse_states(text).unwrap_err().to_string()
    }

    #[test]
    fn errors_name_line_and_field() {
        let ok = "{\"id\":\"a\",\"t\":0,\"p\":[0,0]}\n";
        let e = err(&format!(
            "{ok}{ok}{{\"id\":\"b\",\"t\":0,\"p\":[0,\"x\"]}}\n"
        ));
        assert!(e.starts_with("line 3: field `p[1]`: invalid type"), "{e}");
        let e = err(&format!(
            "{ok}{{\"id\":\"b\",\"t\":0,\"p\":[0,0],\"vel\":[1,1]}}\n"
        ));
        assert!(e.starts_with("line 2: unknown field `vel`"), "{e}");
        let e = err(&format!("{ok}{{\"id\":\"b\",\"p\":[0,0]}}\n"));
        assert!(e.starts_with("line 2: missing field `t`"), "{e}");
        let e = err(&format!(
            "{ok}{{\"id\":\"b\",\"t\":0,\"p\":[0,0],\"v\":[1]}}\n"
        ));
        assert_eq!(e, "line 2: field `v`: has 1 numbers but `p` has 2");
        let e = err(&format!("{ok}{{\"id\":\"b\",\"t\":0,\"p\":[0,NaN]}}\n"));
        assert!(e.starts_with("line 2: field `p[1]`"), "{e}");
        let e = err(&format!("{ok}{{\"id\":\"b\",\"t\":0,\"p\":[0,1e999]}}\n"));
        assert!(e.starts_with("line 2: field `p[1]`"), "{e}");
        let e = err(&format!(
            "{ok}{{\"id\":\"b\",\"t\":0,\"p\":[0,0]}} trailing\n"
        ));
        assert!(e.starts_with("line 2: trailing characters"), "{e}");
        let e = err(&format!(
            "{ok}{{\"id\":\"b\",\"t\":0,\"p\":[0,0],\"shape\":{{\"radius\":-1}}}}\n"
        ));
        assert_eq!(e, "line 2: field `shape.radius`: must be >= 0, got -1");
        let e =
            err("[\n{\"id\":\"a\",\"t\":0,\"p\":[0,0]},\n\n{\"id\":\"\",\"t\":0,\"p\":[0,0]}\n]");
        assert_eq!(e, "element 2 (line 4): field `id`: must not be empty");
        let e = err("[{\"id\":\"a\",\"t\":0,\"p\":[0,0]},");
        assert!(e.contains("not a JSON array"), "{e}");
    }

    #[test]
    fn written_ndjson_reads_back() {
        let s = crate::PaperScene {
            n: 50,
            ..Default::default()
        }
        .generate();
        let mut buf = Vec::new();
        write_ndjson(&mut buf, &s).unwrap();
        let back = parse_states(std::str::from_utf8(&buf).unwrap()).unwrap();
        let want: Vec<ObjectState> = s.iter().map(|x| x.validate().unwrap()).collect();
        assert_eq!(back.states, want);
    }
}
