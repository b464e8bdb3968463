//! Hostile input: differential fuzzing of golden model against RTL, the
//! capture reader on random and broken files, and a corpus of broken
//! captures that must each be named, numbered and survived.

mod common;

use std::io::Cursor;
use std::path::Path;
use std::process::Command;

use metaroce_cosim::capture::{write_capture, CaptureReader, Frame, GenFrame};
use metaroce_cosim::fuzz::{fuzz_frame, run_fuzz};
use metaroce_cosim::rtl::{Model, ModelKind, DATA_WIDTHS};
use metaroce_golden::{parse_frame, ParserConfig};
use proptest::prelude::*;

#[test]
fn twenty_thousand_fuzzed_frames_per_width_match() {
    let seed = common::seed("differential fuzz");
    for width in DATA_WIDTHS {
        let outcome = run_fuzz(Model::plain(width), 20_000, seed, &common::scratch("fuzz-failures")).unwrap();
        if let Some(f) = &outcome.failure {
            panic!("w{width}: {}\n{}\nreproduce: {}", f.capture.display(), f.report, f.repro);
        }
        assert!(outcome.frames >= 20_000, "w{width}: only {} frames", outcome.frames);
        eprintln!("w{width}: {} frames in {} cases", outcome.frames, outcome.cases);
    }
}

#[test]
fn the_fuzzer_makes_pause_and_pfc_frames_and_breaks_them() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
    let rng = TestRng::deterministic_rng(RngAlgorithm::ChaCha);
    let mut runner = TestRunner::new_with_rng(Config::default(), rng);
    let mut seen = std::collections::BTreeMap::new();
    // As many frames as CI's differential fuzz runs per width.
    for _ in 0..20_000 {
        let frame = fuzz_frame().new_tree(&mut runner).unwrap().current();
        let r = parse_frame(&frame.bytes(), frame.mac_error, &ParserConfig::default());
        *seen.entry(r.error.map_or(r.class.name(), |e| e.name())).or_insert(0u32) += 1;
    }
    eprintln!("{seen:?}");
    for outcome in ["flow_control", "truncated_mac_control", "unknown_mac_control_opcode"] {
        assert!(seen.get(outcome).copied().unwrap_or(0) >= 10, "{outcome} in 20,000 fuzzed frames: {seen:?}");
    }
}

#[test]
fn the_fuzzer_catches_a_bug_and_shrinks_it_to_a_capture() {
    let out = common::scratch("caught");
    let bug = Model { width: 64, kind: ModelKind::InjectedBug };
    let outcome = run_fuzz(bug, 20_000, common::seed("fuzz vs bug"), &out).unwrap();
    let failure = outcome.failure.expect("the deliberate bugs are found");
    let frames: Vec<Frame> = CaptureReader::open(&failure.capture).unwrap().map(Result::unwrap).collect();
    assert!(frames.len() <= 3, "shrunk to {} frames", frames.len());
    let last = parse_frame(&frames.last().unwrap().data, false, &ParserConfig::default());
    assert!(matches!(last.opcode, Some(0x0A..=0x0C)), "the culprit is a bugged opcode: {last:?}");
    assert!(
        failure.repro.starts_with("metaroce cosim ") && failure.repro.contains(&*failure.capture.to_string_lossy())
    );
    assert!(failure.report.contains("DIVERGENCE"), "{}", failure.report);
}

/// Reads all it can; returns the frames and the error, if any.
fn read_all(bytes: Vec<u8>) -> (Vec<Frame>, Option<String>) {
    let name = Path::new("fuzzed.pcap");
    let mut reader = match CaptureReader::from_reader(name, Box::new(Cursor::new(bytes))) {
        Ok(r) => r,
        Err(e) => return (vec![], Some(e.to_string())),
    };
    let mut frames = Vec::new();
    loop {
        let mut frame = Frame::default();
        match reader.read_next(&mut frame) {
            Ok(true) => frames.push(frame),
            Ok(false) => return (frames, None),
            Err(e) => {
                assert_eq!(e.frame, Some(frames.len() as u64 + 1), "the error names the next frame: {e}");
                return (frames, Some(e.to_string()));
            }
        }
    }
}

fn valid_capture_bytes() -> Vec<Vec<u8>> {
    ["opcodes.pcap", "errors/mac_error.pcapng", "external/cnp_connectx4lx.pcap"]
        .iter()
        .map(|name| std::fs::read(common::pcaps().join(name)).unwrap())
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn the_reader_survives_any_bytes(bytes in prop::collection::vec(any::<u8>(), 0..4096)) {
        let (_, error) = read_all(bytes);
        if let Some(e) = error {
            prop_assert!(e.starts_with("fuzzed.pcap"), "{e}");
        }
    }

    #[test]
    fn the_reader_survives_broken_captures(
        which in 0usize..3,
        flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..8),
        cut in any::<prop::sample::Index>(),
    ) {
        let original = valid_capture_bytes().swap_remove(which);
        let (good, _) = read_all(original.clone());
        let mut bytes = original;
        for (at, xor) in flips {
            let i = at.index(bytes.len());
            bytes[i] ^= xor;
        }
        let keep = cut.index(bytes.len() + 1);
        bytes.truncate(keep);
        let (frames, _) = read_all(bytes);
        prop_assert!(frames.len() <= good.len() + 64);
    }

    #[test]
    fn the_golden_parser_survives_any_frame(bytes in prop::collection::vec(any::<u8>(), 0..600), mac in any::<bool>()) {
        let record = parse_frame(&bytes, mac, &ParserConfig::default());
        prop_assert_eq!(record.frame_len as usize, bytes.len());
    }
}

/// A broken capture, what its error must say, and how many frames precede it.
struct Hostile {
    name: &'static str,
    bytes: Vec<u8>,
    message: &'static str,
    frame: Option<u64>,
}

fn le32(v: u32) -> [u8; 4] {
    v.to_le_bytes()
}

/// Classic pcap: file header (nanosecond magic, LINKTYPE 1 unless given).
fn pcap_header(snaplen: u32, linktype: u32) -> Vec<u8> {
    let mut h = vec![0x4D, 0x3C, 0xB2, 0xA1, 2, 0, 4, 0];
    h.extend([0; 8]);
    h.extend(le32(snaplen));
    h.extend(le32(linktype));
    h
}

fn pcap_record(data: &[u8], caplen: u32, orig_len: u32) -> Vec<u8> {
    let mut r = Vec::new();
    r.extend(le32(1_700_000_000));
    r.extend(le32(0));
    r.extend(le32(caplen));
    r.extend(le32(orig_len));
    r.extend_from_slice(data);
    r
}

fn frame60() -> Vec<u8> {
    metaroce_cosim::stimuli::RoceFrame::new(0x04, 1).build()
}

fn pcapng_block(kind: u32, body: &[u8]) -> Vec<u8> {
    let total = 12 + body.len() as u32;
    let mut b = le32(kind).to_vec();
    b.extend(le32(total));
    b.extend_from_slice(body);
    b.extend(le32(total));
    b
}

fn pcapng_interfaces(linktypes: &[u16]) -> Vec<u8> {
    let mut shb = vec![0x4D, 0x3C, 0x2B, 0x1A, 1, 0, 0, 0];
    shb.extend([0xFF; 8]);
    let mut file = pcapng_block(0x0A0D0D0A, &shb);
    for &lt in linktypes {
        let mut idb = lt.to_le_bytes().to_vec();
        idb.extend([0, 0]);
        idb.extend(le32(65535));
        file.extend(pcapng_block(1, &idb));
    }
    file
}

fn pcapng_packet(interface: u32, data: &[u8]) -> Vec<u8> {
    let mut epb = le32(interface).to_vec();
    epb.extend(le32(0));
    epb.extend(le32(1000));
    epb.extend(le32(data.len() as u32));
    epb.extend(le32(data.len() as u32));
    epb.extend_from_slice(data);
    epb.resize(epb.len().div_ceil(4) * 4, 0);
    pcapng_block(6, &epb)
}

fn hostile_corpus() -> Vec<Hostile> {
    let f = frame60();
    let two_good = [pcap_record(&f, 60, 60), pcap_record(&f, 60, 60)].concat();
    vec![
        Hostile {
            name: "bad_magic.pcap",
            bytes: b"GIF89a not a capture".to_vec(),
            message: "not a pcap or pcapng capture",
            frame: None,
        },
        Hostile {
            name: "short_header.pcap",
            bytes: pcap_header(65535, 1)[..10].to_vec(),
            message: "bad pcap file header",
            frame: None,
        },
        Hostile {
            name: "truncated_record.pcap",
            bytes: [pcap_header(65535, 1), two_good.clone(), pcap_record(&f, 60, 60)[..40].to_vec()].concat(),
            message: "bad record",
            frame: Some(3),
        },
        Hostile {
            name: "caplen_above_snaplen.pcap",
            bytes: [pcap_header(64, 1), two_good.clone(), pcap_record(&[0; 100], 100, 100)].concat(),
            message: "caplen 100 is above the snaplen 64",
            frame: Some(3),
        },
        Hostile {
            name: "huge_caplen.pcap",
            bytes: [pcap_header(0xFFFF_FFFF, 1), two_good.clone(), pcap_record(&f, 0xFFFF_FFF0, 0xFFFF_FFF0)].concat(),
            message: "bad record",
            frame: Some(3),
        },
        Hostile {
            name: "caplen_above_orig_len.pcap",
            bytes: [pcap_header(65535, 1), two_good.clone(), pcap_record(&f, 60, 20)].concat(),
            message: "caplen 60 is above the original length 20",
            frame: Some(3),
        },
        Hostile {
            name: "unknown_linktype.pcap",
            bytes: [pcap_header(65535, 147), two_good.clone()].concat(),
            message: "is not Ethernet",
            frame: None,
        },
        Hostile {
            name: "two_interfaces.pcapng",
            bytes: [pcapng_interfaces(&[1, 101]), pcapng_packet(0, &f), pcapng_packet(0, &f), pcapng_packet(1, &f)]
                .concat(),
            message: "interface 1 has link type",
            frame: Some(3),
        },
        Hostile {
            name: "undescribed_interface.pcapng",
            bytes: [pcapng_interfaces(&[1]), pcapng_packet(0, &f), pcapng_packet(0, &f), pcapng_packet(5, &f)].concat(),
            message: "refers to interface 5, which no interface block describes",
            frame: Some(3),
        },
        Hostile {
            name: "huge_block.pcapng",
            bytes: [
                pcapng_interfaces(&[1]),
                pcapng_packet(0, &f),
                pcapng_packet(0, &f),
                le32(6).to_vec(),
                le32(0xFFFF_FFF0).to_vec(),
                vec![0; 64],
            ]
            .concat(),
            message: "bad pcapng block",
            frame: Some(3),
        },
    ]
}

#[test]
fn every_hostile_capture_is_named_numbered_and_survived() {
    for h in hostile_corpus() {
        let path = common::scratch(h.name);
        std::fs::write(&path, &h.bytes).unwrap();
        let p = path.to_str().unwrap();
        for args in [vec!["replay", p], vec!["cosim", p, "--width", "64"]] {
            let out = Command::new(env!("CARGO_BIN_EXE_metaroce")).args(&args).output().unwrap();
            let all = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
            assert_eq!(out.status.code(), Some(1), "{}: {args:?}\n{all}", h.name);
            assert!(!all.contains("panicked"), "{}: {all}", h.name);
            assert!(all.contains(p) && all.contains(h.message), "{}: want `{}`:\n{all}", h.name, h.message);
            if let Some(frame) = h.frame {
                assert!(all.contains(&format!("frame {frame}:")), "{}: frame {frame} not named:\n{all}", h.name);
                if args[0] == "replay" {
                    let records = String::from_utf8_lossy(&out.stdout).lines().count() as u64;
                    assert_eq!(records, frame - 1, "{}: the frames before the break are reported", h.name);
                } else {
                    assert!(all.contains(&format!("{} matched", frame - 1)), "{}:\n{all}", h.name);
                }
            }
        }
    }
}

#[test]
fn zero_length_records_are_frames_not_errors() {
    let bytes = [pcap_header(65535, 1), pcap_record(&[], 0, 0), pcap_record(&frame60(), 60, 60)].concat();
    let path = common::scratch("zero_length.pcap");
    std::fs::write(&path, bytes).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_metaroce")).args(["cosim", path.to_str().unwrap()]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
    let replay =
        Command::new(env!("CARGO_BIN_EXE_metaroce")).args(["replay", path.to_str().unwrap()]).output().unwrap();
    let first = String::from_utf8_lossy(&replay.stdout).lines().next().unwrap().to_string();
    assert!(first.contains(r#""error":"truncated_eth""#) && first.contains(r#""frame_len":0"#), "{first}");
}

fn frames_of(reader: CaptureReader) -> Vec<Vec<u8>> {
    reader.map(|f| f.unwrap().data).collect()
}

/// Frames past the reader's first buffer (the input's length from a file or
/// memory, 64 KiB from a stream) are read whole, in pcap and pcapng.
#[test]
fn large_frames_are_read_whole_from_files_memory_and_streams() {
    let sizes = [60usize, 9000, 65535, 60, 9000, 65535];
    let data: Vec<Vec<u8>> =
        sizes.iter().enumerate().map(|(i, &n)| (0..n).map(|b| (b * 7 + i) as u8).collect()).collect();
    let frames: Vec<GenFrame> = data.iter().cloned().map(GenFrame::ok).collect();
    for name in ["large_frames.pcap", "large_frames.pcapng"] {
        let path = common::scratch(name);
        write_capture(&path, &frames).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(frames_of(CaptureReader::open(&path).unwrap()), data, "{name} from the file");
        let in_memory = CaptureReader::from_bytes(Path::new(name), bytes.clone()).unwrap();
        assert_eq!(frames_of(in_memory), data, "{name} from memory");
        let (streamed, error) = read_all(bytes);
        assert_eq!(error, None, "{name}");
        assert_eq!(streamed.into_iter().map(|f| f.data).collect::<Vec<_>>(), data, "{name} from a stream");
    }
}

/// The reader holds records of up to 8,000,000 bytes (pcap-file's fixed
/// buffer) and refuses a longer one with the same error from any source.
#[test]
fn records_up_to_the_8_mb_buffer_are_read_and_longer_ones_refused() {
    let fits = 8_000_000 - 16; // the record header is buffered too
    let frame = |n: usize| (0..n).map(|b| b as u8).collect::<Vec<u8>>();
    let capture = |n: usize| [pcap_header(0, 1), pcap_record(&frame(n), n as u32, n as u32)].concat();
    let (frames, error) = read_all(capture(fits));
    assert_eq!(error, None);
    assert_eq!(frames.len(), 1);
    assert_eq!(frames[0].data, frame(fits));
    let want =
        "fuzzed.pcap: frame 1: bad record: the file ends inside it (or it claims more than the reader's 8 MB buffer)";
    let (frames, error) = read_all(capture(fits + 1));
    assert!(frames.is_empty());
    assert_eq!(error.as_deref(), Some(want), "from a stream");
    let mut reader = CaptureReader::from_bytes(Path::new("fuzzed.pcap"), capture(fits + 1)).unwrap();
    assert_eq!(reader.next().unwrap().unwrap_err().to_string(), want, "from memory");
}
