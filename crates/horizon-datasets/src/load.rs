//! Reading object states from text: NDJSON (one state per line) or a JSON array.
//!
//! Every error names the line (and for arrays the element) and the field, e.g.
//! `line 7: field \`v[1]\`: invalid type: string "x", expected f64`.

use std::collections::HashSet;
use std::io::Write;

use horizon_core::{GeoStateInput, Object, ObjectInput, StateInput};
use rayon::prelude::*;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use thiserror::Error;

/// Whether the text was not JSON at all, or JSON that is not a valid state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoadErrorKind {
    /// Not well-formed JSON (or not an array where one was expected).
    Syntax,
    /// Well-formed JSON that breaks a rule: a missing, unknown or mistyped field, a NaN,
    /// mismatched lengths, a negative radius...
    Invalid,
}

/// A state that could not be read.
#[derive(Debug, Clone, PartialEq, Error)]
#[error("{location}: {message}")]
pub struct LoadError {
    /// `line N` or `element N (line L)`.
    pub location: String,
    /// 1-based line of the offending state.
    pub line: usize,
    /// 0-based index of the offending state in the batch.
    pub index: usize,
    /// What is wrong, naming the field.
    pub message: String,
    /// Syntax or content.
    pub kind: LoadErrorKind,
}

/// States read from a file.
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded {
    /// One state per id: where an id repeats, the later state replaced the earlier.
    pub states: Vec<Object>,
    /// How many states were replaced by a later one with the same id.
    pub replaced: usize,
}

/// Parses NDJSON or a JSON array (detected by a leading `[`). Blank lines are skipped.
pub fn parse_states(text: &str) -> Result<Loaded, LoadError> {
    if text.trim_start().starts_with('[') {
        parse_array(text)
    } else {
        parse_ndjson(text)
    }
}

/// Parses a JSON array of states.
pub fn parse_array(text: &str) -> Result<Loaded, LoadError> {
    let parsed_before_error = std::cell::Cell::new(0);
    let mut de = serde_json::Deserializer::from_str(text);
    let elems = serde::Deserializer::deserialize_seq(&mut de, Elements(&parsed_before_error))
        .and_then(|v| de.end().map(|()| v))
        .map_err(|e| {
            // A syntax error inside element k (a NaN, say) is reported as element k's.
            let index = parsed_before_error.get();
            let what = if e.classify() == serde_json::error::Category::Data && index == 0 {
                "not a JSON array of states: "
            } else {
                ""
            };
            LoadError {
                location: format!("element {} (line {})", index + 1, e.line()),
                line: e.line(),
                index,
                message: format!("{what}{}", strip_position(&e)),
                kind: LoadErrorKind::Syntax,
            }
        })?;
    let starts = line_starts(text);
    let parsed: Vec<Result<Object, LoadError>> = elems
        .par_iter()
        .enumerate()
        .map(|(k, raw)| {
            let offset = raw.get().as_ptr() as usize - text.as_ptr() as usize;
            let line = starts.partition_point(|&s| s <= offset);
            parse_one(raw.get()).map_err(|(kind, message)| LoadError {
                location: format!("element {} (line {line})", k + 1),
                line,
                index: k,
                message,
                kind,
            })
        })
        .collect();
    finish(parsed)
}

/// Parses NDJSON: one state per line, blank lines skipped.
pub fn parse_ndjson(text: &str) -> Result<Loaded, LoadError> {
    let lines: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .collect();
    let parsed: Vec<Result<Object, LoadError>> = lines
        .par_iter()
        .enumerate()
        .map(|(index, &(k, l))| {
            parse_one(l).map_err(|(kind, message)| LoadError {
                location: format!("line {}", k + 1),
                line: k + 1,
                index,
                message,
                kind,
            })
        })
        .collect();
    finish(parsed)
}

fn finish(parsed: Vec<Result<Object, LoadError>>) -> Result<Loaded, LoadError> {
    // Report the first bad state in input order.
    let states = parsed.into_iter().collect::<Result<Vec<_>, _>>()?;
    Ok(keep_latest(states))
}

/// Parses and validates one state, metric (`p`, `v`) or geographic (`lat`, `lon`); the
/// error says whether the JSON was malformed or the state invalid, and names the field.
pub fn parse_one(json: &str) -> Result<Object, (LoadErrorKind, String)> {
    // Fast paths: plain serde. Only a failure pays for tracking the field path.
    let input = if let Ok(s) = serde_json::from_str::<StateInput>(json) {
        ObjectInput::Metric(s)
    } else if let Ok(g) = serde_json::from_str::<GeoStateInput>(json) {
        ObjectInput::Geo(g)
    } else if is_geographic(json) {
        ObjectInput::Geo(with_path(json)?)
    } else {
        ObjectInput::Metric(with_path(json)?)
    };
    input
        .validate()
        .map_err(|e| (LoadErrorKind::Invalid, e.to_string()))
}

/// A state that names `lat` or `lon` is meant to be geographic, whatever else is wrong.
fn is_geographic(json: &str) -> bool {
    serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(json)
        .is_ok_and(|m| m.contains_key("lat") || m.contains_key("lon"))
}

/// Deserializes with the failing field's path in the message.
fn with_path<T: DeserializeOwned>(json: &str) -> Result<T, (LoadErrorKind, String)> {
    let kind_of = |e: &serde_json::Error| match e.classify() {
        serde_json::error::Category::Data => LoadErrorKind::Invalid,
        _ => LoadErrorKind::Syntax,
    };
    let mut de = serde_json::Deserializer::from_str(json);
    let input: T = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = e.path().to_string();
        let msg = strip_position(e.inner());
        let msg = if matches!(path.as_str(), "" | "." | "?") || msg.starts_with("unknown field") {
            msg
        } else {
            format!("field `{path}`: {msg}")
        };
        (kind_of(e.inner()), msg)
    })?;
    de.end()
        .map_err(|e| (LoadErrorKind::Syntax, strip_position(&e)))?;
    Ok(input)
}

/// Collects an array's elements as raw JSON, counting them so an error can say where.
struct Elements<'c>(&'c std::cell::Cell<usize>);

impl<'de> serde::de::Visitor<'de> for Elements<'_> {
    type Value = Vec<&'de RawValue>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON array of states")
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(raw) = seq.next_element()? {
            out.push(raw);
            self.0.set(out.len());
        }
        Ok(out)
    }
}

/// Later states replace earlier ones with the same id (DESIGN.md "Objects").
fn keep_latest(states: Vec<Object>) -> Loaded {
    let n = states.len();
    let mut seen = HashSet::with_capacity(n);
    let mut keep = vec![false; n];
    for (i, s) in states.iter().enumerate().rev() {
        keep[i] = seen.insert(s.id());
    }
    drop(seen);
    let states: Vec<Object> = states
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
        assert!(e.starts_with("element 2 (line 1): EOF"), "{e}");
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
        let want: Vec<Object> = s.iter().map(|x| x.validate().unwrap().into()).collect();
        assert_eq!(back.states, want);
    }

    #[test]
    fn geographic_states_parse_with_field_errors() {
        let l = parse_states(
            r#"{"id":"367","t":1,"lat":40.6,"lon":-74.0,"speed":5,"course":90,"name":"TUG","hull":{"to_bow":10,"to_stern":20,"to_port":3,"to_starboard":3}}"#,
        )
        .unwrap();
        assert!(matches!(&l.states[0], Object::Geo(g) if g.meta().name.as_deref() == Some("TUG")));
        let e = parse_states(r#"{"id":"a","t":1,"lat":"north","lon":0}"#).unwrap_err();
        assert!(e.message.contains("field `lat`"), "{e}");
        let e = parse_states(r#"{"id":"a","t":1,"lat":95,"lon":0}"#).unwrap_err();
        assert!(
            e.message.contains("`lat`") && e.kind == LoadErrorKind::Invalid,
            "{e}"
        );
        let e = parse_states(r#"{"id":"a","t":1,"p":[0,0],"colour":1}"#).unwrap_err();
        assert!(e.message.contains("unknown field `colour`"), "{e}");
    }

    #[test]
    fn errors_carry_index_and_kind() {
        let ok = r#"{"id":"a","t":0,"p":[0,0]}"#;
        let bad =
            parse_states(&format!("{ok}\n{}\n", r#"{"id":"b","t":0,"p":[0,"x"]}"#)).unwrap_err();
        assert_eq!((bad.index, bad.kind), (1, LoadErrorKind::Invalid));
        let bad = parse_states(&format!("{ok}\n\n{}\n", r#"{"id":"b","t":0,"#)).unwrap_err();
        assert_eq!(
            (bad.index, bad.line, bad.kind),
            (1, 3, LoadErrorKind::Syntax)
        );
        let bad = parse_array(&format!(
            "[{ok},{}]",
            r#"{"id":"b","t":0,"p":[0,1],"shape":{"radius":-1}}"#
        ))
        .unwrap_err();
        assert_eq!((bad.index, bad.kind), (1, LoadErrorKind::Invalid));
        assert_eq!(parse_array(ok).unwrap_err().kind, LoadErrorKind::Syntax);
        let bad = parse_array(&format!(
            "[{ok},{ok},{}]",
            r#"{"id":"b","t":0,"p":[0,NaN]}"#
        ))
        .unwrap_err();
        assert_eq!((bad.index, bad.kind), (2, LoadErrorKind::Syntax), "{bad}");
        assert_eq!(
            parse_ndjson(&format!("{ok}\n{ok}")).unwrap().states.len(),
            1
        );
    }
}
