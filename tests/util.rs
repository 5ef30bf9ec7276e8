//! Running the binary.

use std::io::Write;
use std::process::{Command, Output, Stdio};

pub fn horizondb(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_horizondb"))
        .args(args)
        .output()
        .expect("run horizondb")
}

pub fn horizondb_stdin(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_horizondb"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run horizondb");
    // The command may exit before reading stdin (a bad argument): a closed pipe is fine.
    if let Err(e) = child.stdin.take().unwrap().write_all(input.as_bytes()) {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
    }
    child.wait_with_output().unwrap()
}

pub fn stdout(o: &Output) -> String {
    assert!(
        o.status.success(),
        "failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout.clone()).unwrap()
}

pub fn json(o: &Output) -> serde_json::Value {
    serde_json::from_str(&stdout(o)).expect("JSON answer")
}
