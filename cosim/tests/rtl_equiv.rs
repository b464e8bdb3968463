//! The RTL-against-RTL equivalence bench (ci/rtl-equiv.sh): the working
//! tree's congestion-notification block against HEAD's, every output every
//! cycle, with the RTL assertions on; and the same run with a planted
//! one-line fault, which it must report. One test, as both runs share
//! target/rtl-equiv/.

mod common;

use std::process::Command;

fn equiv(args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new("bash")
        .arg("ci/rtl-equiv.sh")
        .args(args)
        .current_dir(common::workspace())
        .output()
        .expect("run ci/rtl-equiv.sh");
    (out.status.code(), common::text(&out))
}

#[test]
fn equivalence_bench_passes_identical_rtl_and_finds_a_planted_fault() {
    let (code, text) = equiv(&["--events", "2000", "--assert", "--lenient"]);
    assert_eq!(code, Some(0), "identical RTL must pass:\n{text}");
    assert!(text.contains("EQUIV PASS seed=1 W=64 Q=8"), "{text}");
    // The run exercised both reply points and the reaction point.
    for seen in ["CNP ", "ACK ", "trigger cnp "] {
        assert!(!text.contains(&format!("{seen}0,")) && !text.contains(&format!("{seen}0\n")), "{seen}none:\n{text}");
    }

    let (code, text) = equiv(&["--events", "2000", "--lenient", "--plant"]);
    assert_eq!(code, Some(1), "the planted fault must be found:\n{text}");
    assert!(text.contains("EQUIV MISMATCH at cycle") && text.contains("EQUIV FAIL"), "{text}");
}
