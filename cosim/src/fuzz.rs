//! Differential fuzzing: random and mutated frames through golden model and
//! RTL, with random handshakes. Frames start as valid RoCEv2 frames with
//! random fields (or, one in ten, MAC Control frames: PAUSE, PFC or any
//! opcode, random parameters), then maybe get byte flips, a truncation, a
//! length field that lies, a MAC error flag. A failing batch is shrunk by proptest to the
//! fewest, simplest frames, written as a capture, and given a repro command.

use std::cell::Cell;
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestError, TestRng, TestRunner};

use crate::addresses::host_mac;
use crate::blocks::parser::{cosim_capture, cosim_in_memory};
use crate::capture::Frame;
use crate::capture::{write_capture, GenFrame};
use crate::harness::{CosimOptions, Ending};
use crate::rtl::{Handshake, Model};
use crate::run::FuzzPlan;
use crate::stimuli::{carried_opcodes, fix_ipv4_checksum, tagged_mac_control_frame, RoceFrame, L3};
use metaroce_golden::opcode::CNP;
use metaroce_golden::wire::{ethertype, ip_proto, EthernetRepr, MacControlRepr, PfcFrame, VlanRepr, ROCE_V2_UDP_PORT};
use std::io::Write;
use std::time::Instant;

/// Frames per proptest case: a batch runs through one fresh RTL model.
pub const FRAMES_PER_CASE: usize = 64;

/// How a valid frame is broken (or not).
#[derive(Debug, Clone)]
pub enum Mutation {
    None,
    /// XOR these bytes (positions taken modulo the frame length).
    Flip(Vec<(Index, u8)>),
    /// Keep only a prefix.
    Truncate(Index),
    /// Overwrite a length field with a random value, maybe fixing the IPv4
    /// header checksum afterwards so the lie gets past it.
    LyingLength {
        field: LengthField,
        value: u16,
        fix_checksum: bool,
    },
}

#[derive(Debug, Clone, Copy)]
pub enum LengthField {
    IpTotal,
    UdpLength,
    Ihl,
}

/// The recipe of one fuzzed frame.
#[derive(Debug, Clone)]
pub struct FuzzFrame {
    pub base: RoceFrame,
    /// When set, the frame is this MAC Control frame, behind `base`'s VLAN
    /// tags, instead of `base`.
    pub mac_control: Option<MacControlRepr>,
    pub mutation: Mutation,
    pub mac_error: bool,
}

impl FuzzFrame {
    pub fn bytes(&self) -> Vec<u8> {
        if let Some(body) = self.mac_control {
            let mut bytes = tagged_mac_control_frame(&self.base.vlans, host_mac(1), body);
            // A cut lands in the headers and the longest parameters (a cut
            // in the padding changes nothing); the lengths a lie would
            // overwrite are the RoCE frame's.
            let parameters_end = EthernetRepr::LEN + VlanRepr::LEN * self.base.vlans.len() + PfcFrame::<&[u8]>::LEN;
            match &self.mutation {
                Mutation::Flip(flips) => flip(&mut bytes, flips),
                Mutation::Truncate(at) => bytes.truncate(at.index(parameters_end + 1)),
                Mutation::None | Mutation::LyingLength { .. } => {}
            }
            return bytes;
        }
        let mut bytes = self.base.build();
        let l3 = self.base.l3_offset();
        let l4 = l3 + self.base.ip_header_len();
        let is_v4 = matches!(self.base.l3, L3::V4 { .. });
        match &self.mutation {
            Mutation::None => {}
            Mutation::Flip(flips) => flip(&mut bytes, flips),
            Mutation::Truncate(at) => bytes.truncate(at.index(bytes.len() + 1)),
            Mutation::LyingLength { field, value, fix_checksum } => {
                let at = match field {
                    LengthField::IpTotal if is_v4 => l3 + 2,
                    LengthField::IpTotal => l3 + 4,
                    LengthField::UdpLength => l4 + 4,
                    LengthField::Ihl => l3,
                };
                if let LengthField::Ihl = field {
                    bytes[at] = (bytes[at] & 0xF0) | (*value as u8 & 0x0F);
                } else {
                    bytes[at..at + 2].copy_from_slice(&value.to_be_bytes());
                }
                if *fix_checksum && is_v4 {
                    fix_ipv4_checksum(&mut bytes, l3);
                }
            }
        }
        bytes
    }
}

fn flip(bytes: &mut [u8], flips: &[(Index, u8)]) {
    for (at, xor) in flips {
        let i = at.index(bytes.len());
        bytes[i] ^= xor;
    }
}

fn vlan_stack() -> impl Strategy<Value = Vec<(u16, u8, u16)>> {
    let tpid = prop_oneof![Just(ethertype::VLAN_CTAG), Just(ethertype::VLAN_STAG)];
    prop::collection::vec((tpid, 0u8..8, 0u16..4096), 0..=3)
}

fn base_frame() -> impl Strategy<Value = RoceFrame> {
    let opcodes = carried_opcodes();
    let opcode = prop_oneof![9 => prop::sample::select(opcodes), 1 => any::<u8>()];
    let payload = prop_oneof![4 => 0usize..16, 3 => 16usize..300, 1 => 300usize..2000];
    let dport = prop_oneof![9 => Just(ROCE_V2_UDP_PORT), 1 => any::<u16>()];
    let proto = prop_oneof![19 => Just(ip_proto::UDP), 1 => any::<u8>()];
    let l3 = prop_oneof![
        3 => (0usize..=10).prop_map(|words| L3::V4 { options: vec![1; words * 4] }),
        1 => any::<u32>().prop_map(|flow_label| L3::V6 { flow_label }),
    ];
    // A CNP's reserved bytes: zero, MetaRoCE's tag (version 1 or 2) before
    // random bytes, or random.
    let tagged = |version: u8| {
        any::<[u8; 16]>().prop_map(move |mut bytes| {
            bytes[..2].copy_from_slice(&[0x4D, version]);
            bytes
        })
    };
    let cnp_reserved = prop_oneof![2 => Just([0u8; 16]), 1 => tagged(1), 1 => tagged(2), 1 => any::<[u8; 16]>()];
    (opcode, any::<u32>(), payload, vlan_stack(), l3, 0u8..64, 0u8..4, dport, proto, cnp_reserved).prop_map(
        |(op, seq, payload, vlans, l3, dscp, ecn, dport, proto, cnp_reserved)| {
            let mut f = RoceFrame::new(op, seq).with_payload(payload, seq);
            if op == CNP {
                f.ext = cnp_reserved.to_vec();
            }
            f.vlans = vlans;
            f.l3 = l3;
            f.dscp = dscp;
            f.ecn = ecn;
            f.udp_dport = dport;
            f.ip_proto = proto;
            f
        },
    )
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let field = prop_oneof![Just(LengthField::IpTotal), Just(LengthField::UdpLength), Just(LengthField::Ihl)];
    prop_oneof![
        6 => Just(Mutation::None),
        2 => prop::collection::vec((any::<Index>(), 1u8..=255), 1..4).prop_map(Mutation::Flip),
        1 => any::<Index>().prop_map(Mutation::Truncate),
        1 => (field, any::<u16>(), any::<bool>())
            .prop_map(|(field, value, fix_checksum)| Mutation::LyingLength { field, value, fix_checksum }),
    ]
}

fn mac_control() -> impl Strategy<Value = Option<MacControlRepr>> {
    let pfc = (any::<u16>(), prop::array::uniform8(any::<u16>()))
        .prop_map(|(class_enable, pause_times)| MacControlRepr::Pfc { class_enable, pause_times });
    let body = prop_oneof![
        3 => pfc,
        2 => any::<u16>().prop_map(|pause_time| MacControlRepr::Pause { pause_time }),
        1 => any::<u16>().prop_map(|opcode| MacControlRepr::Other { opcode }),
    ];
    prop::option::weighted(0.1, body)
}

pub fn fuzz_frame() -> impl Strategy<Value = FuzzFrame> {
    (base_frame(), mac_control(), mutation(), prop::bool::weighted(0.02))
        .prop_map(|(base, mac_control, mutation, mac_error)| FuzzFrame { base, mac_control, mutation, mac_error })
}

/// One proptest case: a batch of frames and the handshake it runs with.
#[derive(Debug, Clone)]
pub struct FuzzCase {
    pub frames: Vec<FuzzFrame>,
    pub handshake: Handshake,
}

pub fn fuzz_case() -> impl Strategy<Value = FuzzCase> {
    (prop::collection::vec(fuzz_frame(), 1..=FRAMES_PER_CASE), any::<u64>(), 0u32..40, 0u32..40).prop_map(
        |(frames, seed, idle_pct, stall_pct)| FuzzCase { frames, handshake: Handshake { seed, idle_pct, stall_pct } },
    )
}

impl FuzzCase {
    pub fn frames(&self) -> Vec<Frame> {
        self.frames
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let data = f.bytes();
                Frame {
                    index: i as u64 + 1,
                    time_ns: i as u64 * 1000,
                    orig_len: data.len() as u32,
                    data,
                    mac_error: f.mac_error,
                }
            })
            .collect()
    }
}

/// What a fuzz run did.
#[derive(Debug)]
pub struct FuzzOutcome {
    pub cases: u64,
    pub frames: u64,
    /// The shrunk failing frames, where they were written, and how to
    /// repeat them.
    pub failure: Option<FuzzFailure>,
}

#[derive(Debug)]
pub struct FuzzFailure {
    pub capture: PathBuf,
    pub report: String,
    pub repro: String,
}

/// Runs at least `frames` fuzzed frames through `model` from `seed` (the
/// case count allows for batch sizes averaging 32.5); a failure is shrunk
/// and written to `out_dir`.
pub fn run_fuzz(model: Model, frames: u64, seed: u64, out_dir: &Path) -> Result<FuzzOutcome, String> {
    let width = model.width;
    let cases = frames.div_ceil(28).max(1) as u32;
    let config = Config { cases, failure_persistence: None, max_shrink_iters: 2000, ..Config::default() };
    let mut seed_bytes = [0u8; 32];
    seed_bytes[..8].copy_from_slice(&seed.to_le_bytes());
    seed_bytes[8..16].copy_from_slice(&u64::from(width).to_le_bytes());
    let mut runner = TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &seed_bytes));
    let name = PathBuf::from(format!("fuzz-w{width}-{seed:x}"));
    let ran_frames = Cell::new(0u64);
    let ran_cases = Cell::new(0u64);
    let result = runner.run(&fuzz_case(), |case| {
        let frames = case.frames();
        ran_frames.set(ran_frames.get() + frames.len() as u64);
        ran_cases.set(ran_cases.get() + 1);
        let run = cosim_in_memory(&name, &frames, &CosimOptions::new(model, case.handshake));
        if run.passed() {
            Ok(())
        } else {
            Err(TestCaseError::fail(format!("{:?}", run.ending)))
        }
    });
    let failure = match result {
        Ok(()) => None,
        Err(TestError::Abort(why)) => return Err(format!("the fuzzer gave up: {why}")),
        Err(TestError::Fail(_, minimal)) => {
            std::fs::create_dir_all(out_dir).map_err(|e| format!("{}: {e}", out_dir.display()))?;
            let any_mac_error = minimal.frames.iter().any(|f| f.mac_error);
            let extension = if any_mac_error { "pcapng" } else { "pcap" };
            let capture = out_dir.join(format!("fuzz-w{width}-{seed:x}.{extension}"));
            let frames = minimal.frames();
            let gen: Vec<GenFrame> = frames
                .iter()
                .map(|f| GenFrame { data: f.data.clone(), mac_error: f.mac_error, time_ns: Some(f.time_ns) })
                .collect();
            write_capture(&capture, &gen).map_err(|e| format!("{}: {e:#}", capture.display()))?;
            let options = CosimOptions::new(model, minimal.handshake);
            let run = cosim_capture(&capture, &options);
            let report = match &run.ending {
                Ending::Diverged(d) => d.to_string(),
                other => format!("{other:?}"),
            };
            let repro = options.repro(&capture, frames.len() as u64);
            Some(FuzzFailure { capture, report, repro })
        }
    };
    Ok(FuzzOutcome { cases: ran_cases.get(), frames: ran_frames.get(), failure })
}

/// `metaroce fuzz` of this block: runs `plan`, a line per run; `Ok(false)`
/// when something failed.
pub fn fuzz_block(plan: &FuzzPlan, out: &mut dyn Write) -> anyhow::Result<bool> {
    let (frames, seed, widths) = (plan.frames, plan.seed, &plan.widths);
    writeln!(out, "fuzz: {frames} frames per width, widths {widths:?}, seed {seed:#x}")?;
    out.flush()?;
    let mut passed = true;
    for &width in widths {
        let started = Instant::now();
        let outcome = run_fuzz(Model::plain(width), frames, seed, &plan.out).map_err(anyhow::Error::msg)?;
        let secs = started.elapsed().as_secs_f64();
        match &outcome.failure {
            None => writeln!(
                out,
                "PASS  w{width}  {} frames in {} cases, {secs:.1} s, {:.0} frames/s",
                outcome.frames,
                outcome.cases,
                outcome.frames as f64 / secs.max(1e-9)
            )?,
            Some(f) => {
                passed = false;
                writeln!(out, "FAIL  w{width}  after {} frames; shrunk to {}", outcome.frames, f.capture.display())?;
                writeln!(out, "{}", f.report)?;
                writeln!(out, "  reproduce: {}", f.repro)?;
            }
        }
    }
    Ok(passed)
}
