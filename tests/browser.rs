//! The monitor page in a real browser (chromium through selenium): `tests/browser/monitor.py`
//! runs `serve --demo harbor`, waits for conflicts in the page's table, checks them against
//! the server's answer and saves `target/artifacts/monitor.png`.
//!
//! Ignored by a plain `cargo test` because it needs Debian's `chromium`, `chromium-driver`
//! and `python3-selenium`; `.ci/run` installs them and runs it with `--ignored`.

#[test]
#[ignore = "needs chromium, chromium-driver and python3-selenium: run by .ci/run"]
fn monitor_page_shows_live_conflicts_in_a_browser() {
    let root = env!("CARGO_MANIFEST_DIR");
    let artifacts = format!("{root}/target/artifacts");
    std::fs::create_dir_all(&artifacts).unwrap();
    let out = std::process::Command::new("/usr/bin/python3")
        .arg(format!("{root}/tests/browser/monitor.py"))
        .arg(env!("CARGO_BIN_EXE_horizondb"))
        .arg(format!("{artifacts}/monitor.png"))
        .output()
        .expect("run /usr/bin/python3 (apt-get install python3-selenium chromium chromium-driver)");
    println!("{}", String::from_utf8_lossy(&out.stdout));
    assert!(
        out.status.success(),
        "browser test failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
