//! Expected results of every capture: the golden records as JSONL, kept as
//! insta snapshots in pcaps/expected/ beside the stimuli; and the error
//! captures each classify as the error they were made for.

mod common;

use metaroce_cosim::capture::CaptureReader;
use metaroce_cosim::catalog::all_captures;
use metaroce_cosim::nic::{CnOverrides, CnSetup};
use metaroce_cosim::recording::{write_record, OutputFormat};
use metaroce_cosim::replay::{replay, replay_cn, Model};
use metaroce_cosim::report::Transaction;
use metaroce_golden::{parse_frame, FrameClass, ParserConfig};

#[test]
fn golden_records_of_every_capture_match_the_expected_results() {
    // The congestion-notification captures are long; their CN transactions
    // are the expected results that matter (the next test).
    for capture in common::captures().into_iter().filter(|c| !common::relative_name(c).starts_with("cn/")) {
        let mut jsonl = Vec::new();
        let mut sink = |t: Transaction| write_record(&mut jsonl, OutputFormat::Jsonl, t.frame, t.time_ns, &t.record);
        replay(&capture, Model::Golden, &ParserConfig::default(), &mut sink).unwrap();
        let name = common::relative_name(&capture).replace('/', "__");
        insta::with_settings!({
            snapshot_path => common::pcaps().join("expected"),
            prepend_module_to_snapshot => false,
            omit_expression => true,
            description => format!("golden records of pcaps/{}", common::relative_name(&capture)),
        }, {
            insta::assert_snapshot!(name, String::from_utf8(jsonl).unwrap());
        });
    }
}

#[test]
fn golden_cn_transactions_of_every_nic_capture_match_the_expected_results() {
    let mut seen = 0;
    for capture in common::captures() {
        let setup = CnSetup::for_capture(&capture, &CnOverrides::default()).unwrap();
        let Some(nic_file) = &setup.nic_file else { continue };
        let transactions = replay_cn(&capture, None, &setup, &ParserConfig::default()).unwrap().transactions;
        assert!(!transactions.is_empty(), "{}: no output of the CN block", capture.display());
        let mut jsonl = Vec::new();
        for t in &transactions {
            write_record(&mut jsonl, OutputFormat::Jsonl, t.frame, t.time_ns, &t.record).unwrap();
        }
        let name = common::relative_name(&capture).replace('/', "__") + ".cn";
        insta::with_settings!({
            snapshot_path => common::pcaps().join("expected"),
            prepend_module_to_snapshot => false,
            omit_expression => true,
            description => format!(
                "golden CNPs, rate changes, ACKs, NAKs and retransmit requests of pcaps/{} with {}",
                common::relative_name(&capture),
                common::relative_name(nic_file)
            ),
        }, {
            insta::assert_snapshot!(name, String::from_utf8(jsonl).unwrap());
        });
        seen += 1;
    }
    assert!(seen >= 7, "only {seen} captures with a NIC file");
}

#[test]
fn every_generated_capture_classifies_as_intended() {
    for capture in all_captures() {
        let path = common::pcaps().join(&capture.name);
        let frames: Vec<_> = CaptureReader::open(&path).unwrap().map(Result::unwrap).collect();
        assert_eq!(frames.len(), capture.frames.len(), "{}", capture.name);
        for frame in frames {
            let record = parse_frame(&frame.data, frame.mac_error, &ParserConfig::default());
            match capture.expect_error {
                Some(error) => assert_eq!(record.error, Some(error), "{} frame {}", capture.name, frame.index),
                None => {
                    assert_ne!(record.class, FrameClass::Error, "{} frame {}: {record:?}", capture.name, frame.index)
                }
            }
        }
    }
}

#[test]
fn there_is_a_capture_for_every_error_class() {
    let covered: Vec<_> = all_captures().iter().filter_map(|c| c.expect_error).collect();
    for error in metaroce_golden::ParseError::ALL {
        assert!(covered.contains(&error), "no capture for {}", error.name());
    }
}
