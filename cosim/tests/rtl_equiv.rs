//! The RTL-against-RTL equivalence bench (ci/rtl-equiv.sh) tested on
//! itself: the working tree's congestion-notification block against
//! HEAD's (the same RTL in CI) must pass with the RTL assertions on, having
//! exercised both reply points, the reaction point and the requester; with
//! a planted one-line fault in the responder it must report a difference
//! on the frame output. One test, as both runs share target/rtl-equiv/.

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

/// The count the bench prints after `label` (as in "CNP 420,").
fn count_after(text: &str, label: &str) -> u64 {
    let at = text.find(label).unwrap_or_else(|| panic!("no '{label}' in the bench's counts:\n{text}"));
    let digits: String = text[at + label.len()..].chars().take_while(char::is_ascii_digit).collect();
    digits.parse().unwrap_or_else(|_| panic!("no count after '{label}':\n{text}"))
}

#[test]
fn equivalence_bench_passes_identical_rtl_and_finds_a_planted_fault() {
    // Seed 1 draws ack_mode rocev2 (seed % 5 == 4 would turn ACKs off).
    let (code, text) = equiv(&["--events", "2000", "--assert", "--lenient"]);
    assert_eq!(code, Some(0), "identical RTL must pass:\n{text}");
    assert!(text.contains("EQUIV PASS seed=1 W=64 Q=8"), "{text}");
    for label in ["CNP ", "ACK ", "NAK ", "trigger cnp ", "rc_req ", "retransmit requests "] {
        assert!(count_after(&text, label) >= 20, "fewer than 20 after '{label}':\n{text}");
    }
    assert_eq!(count_after(&text, "handed over: "), 0, "{text}");

    let (code, text) = equiv(&["--events", "2000", "--lenient", "--plant"]);
    assert_eq!(code, Some(1), "the planted fault must be found:\n{text}");
    assert!(text.contains("with the planted fault") && text.contains("EQUIV MISMATCH at cycle"), "{text}");
    assert!(text.contains("  output m_axis_"), "the fault is in the ACKs, so on the frame output:\n{text}");
}
