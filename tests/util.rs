//! Running the binary.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

use serde_json::Value;

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

/// A running server; killed with SIGKILL when dropped.
pub struct Server {
    pub child: Child,
    pub url: String,
    stderr: PathBuf,
}

impl Server {
    pub fn start(dir: &Path, extra: &[&str]) -> Server {
        let stderr = dir.with_extension(format!("stderr-{}", std::process::id()));
        let mut child = Command::new(env!("CARGO_BIN_EXE_horizondb"))
            .args(["serve", "--bind", "127.0.0.1:0", "--data-dir"])
            .arg(dir)
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&stderr).unwrap())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line
            .trim()
            .strip_prefix("HorizonDB listening on ")
            .unwrap_or_else(|| {
                panic!(
                    "no address in {line:?}: {}",
                    std::fs::read_to_string(&stderr).unwrap_or_default()
                )
            })
            .to_string();
        Server { child, url, stderr }
    }

    pub fn kill9(mut self) {
        self.child.kill().unwrap(); // SIGKILL
        self.child.wait().unwrap();
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(60)))
        .build()
        .into()
}

pub fn send(method: &str, url: &str, ct: &str, body: &str) -> (u16, Value) {
    let a = agent();
    let resp = match method {
        "POST" => a.post(url).header("Content-Type", ct).send(body),
        "PUT" => a.put(url).header("Content-Type", ct).send(body),
        "DELETE" => a.delete(url).call(),
        _ => a.get(url).call(),
    }
    .unwrap();
    let status = resp.status().as_u16();
    let text = resp.into_body().read_to_string().unwrap();
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

pub fn get(url: &str) -> (u16, Value) {
    send("GET", url, "", "")
}
