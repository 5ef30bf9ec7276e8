use crate::util::{horizondb, stdout};

#[test]
fn quick_bench_writes_tables_and_plots_with_agreeing_algorithms() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("results");
    let md = stdout(&horizondb(&[
        "bench",
        "--quick",
        "--out",
        out.to_str().unwrap(),
    ]));
    assert!(md.contains("all algorithms returned identical answers"));
    assert!(md.contains("### horizon h (s)") && md.contains("| 100000 |"));
    let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
    assert!(csv.starts_with("sweep,x,label,n,horizon"));
    for alg in ["grid", "rtree", "brute"] {
        assert!(csv.contains(&format!(",{alg},")), "{alg}");
    }
    for svg in [
        "horizon-time",
        "horizon-pairs",
        "scale-time",
        "cell-scale-time",
        "prune-power",
    ] {
        let text = std::fs::read_to_string(out.join(format!("{svg}.svg"))).unwrap();
        assert!(
            text.starts_with("<svg") && text.contains("grid") || svg == "prune-power",
            "{svg}"
        );
    }
}
