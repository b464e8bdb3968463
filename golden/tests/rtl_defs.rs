//! `rtl/metaroce_defs.vh`, the codes the RTL shares with the golden model,
//! generated from the golden model's own enums so that each code has one
//! source. The file is checked in (Yosys, lint and synthesis read rtl/
//! without cargo); this test fails when it is stale, and rewrites it when
//! run with `METAROCE_BLESS=1`.

use std::fmt::Write as _;
use std::path::PathBuf;

use metaroce_golden::cc_params::AckMode;
use metaroce_golden::cc_table::CC_PARAMS;
use metaroce_golden::cn_event::CnEventKind;
use metaroce_golden::opcode::{CNP, METAROCE_SACK_TAG, METAROCE_SACK_VERSION, RC_ACK};
use metaroce_golden::reaction::{RateStage, RateTrigger};
use metaroce_golden::requester::RetxCause;
use metaroce_golden::responder::{AETH_ACK, AETH_NAK_PSN_SEQ, SACK_WINDOW};
use metaroce_golden::wire::SackRepr;
use metaroce_golden::{FrameClass, ParseError};

const REGENERATE: &str = "METAROCE_BLESS=1 cargo test -p metaroce-golden --test rtl_defs";

/// The Verilog name of an event kind (the enum has no names of its own).
fn kind_name(kind: CnEventKind) -> &'static str {
    match kind {
        CnEventKind::RxData => "rx_data",
        CnEventKind::RxCnp => "rx_cnp",
        CnEventKind::TxData => "tx_data",
        CnEventKind::Time => "time",
    }
}

/// The width of a `cfg` register (golden/src/cc_table.rs).
fn register_width(name: &str) -> u32 {
    CC_PARAMS.iter().flat_map(|p| p.registers).find(|r| r.name == name).expect("a register of the table").width
}

/// One group of codes: a comment, the Verilog prefix and width, and the
/// (name, code) pairs.
fn group(out: &mut String, doc: &str, prefix: &str, width: u32, codes: &[(&str, u8)]) {
    writeln!(out, "\n// {doc}").unwrap();
    for &(name, code) in codes {
        assert!(u32::from(code) < 1 << width, "{prefix}_{name} = {code} does not fit {width} bits");
        writeln!(out, "localparam [{}:0] {prefix}_{} = {width}'d{code};", width - 1, name.to_uppercase()).unwrap();
    }
}

fn metaroce_defs_vh() -> String {
    let mut out = format!(
        "// Generated from the golden model's codes by golden/tests/rtl_defs.rs: do not edit.\n\
         // Regenerate with `{REGENERATE}`.\n\
         //\n\
         // Included inside a module body: each module takes the codes it uses\n\
         // from here as localparams.\n\
         /* verilator lint_off UNUSEDPARAM */\n"
    );
    let classes: Vec<_> = FrameClass::ALL.iter().map(|c| (c.name(), c.code())).collect();
    group(&mut out, "Parse record class, m_meta_frame_class (golden/src/record.rs FrameClass).", "CLASS", 2, &classes);
    let mut errors = vec![("none", 0)];
    errors.extend(ParseError::ALL.iter().map(|e| (e.name(), e.code())));
    group(&mut out, "Parse error, m_meta_error, 0 for none (golden/src/record.rs ParseError).", "ERR", 5, &errors);
    let last = ParseError::ALL.iter().map(|e| e.code()).max().unwrap_or(0);
    writeln!(
        out,
        "// The highest code: the RTL's assertions refuse any above it.\nlocalparam [4:0] ERR_LAST = 5'd{last};"
    )
    .unwrap();
    let kinds: Vec<_> = [CnEventKind::RxData, CnEventKind::RxCnp, CnEventKind::TxData, CnEventKind::Time]
        .iter()
        .map(|&k| (kind_name(k), k as u8))
        .collect();
    group(
        &mut out,
        "Congestion-notification event kind, s_evt_kind (golden/src/cn_event.rs CnEventKind).",
        "KIND",
        2,
        &kinds,
    );
    let stages: Vec<_> = RateStage::ALL.iter().map(|&s| (s.name(), s as u8)).collect();
    group(&mut out, "Rate change stage, m_rate_stage (golden/src/reaction.rs RateStage).", "STAGE", 2, &stages);
    let triggers: Vec<_> = RateTrigger::ALL.iter().map(|&t| (t.name(), t as u8)).collect();
    group(
        &mut out,
        "Rate change trigger, m_rate_trigger (golden/src/reaction.rs RateTrigger).",
        "TRIGGER",
        2,
        &triggers,
    );
    let causes: Vec<_> = RetxCause::ALL.iter().map(|&c| (c.name(), c as u8)).collect();
    group(&mut out, "Retransmit request cause, m_retx_cause (golden/src/requester.rs RetxCause).", "CAUSE", 2, &causes);
    let ack_modes: Vec<_> = AckMode::ALL.iter().map(|&m| (m.name(), m as u8)).collect();
    group(
        &mut out,
        "Register ack_mode, cfg[`CFG_ACK_MODE] (golden/src/cc_table.rs AckMode).",
        "ACK_MODE",
        register_width("ack_mode"),
        &ack_modes,
    );
    writeln!(out, "\n// The CNP's BTH opcode (golden/src/opcode.rs).\nlocalparam [7:0] OPCODE_CNP = 8'h{CNP:02X};")
        .unwrap();
    writeln!(
        out,
        "\n// RC ACKNOWLEDGE's BTH opcode (golden/src/opcode.rs RC_ACK) and its AETH\n\
         // syndromes (golden/src/responder.rs, SPEC.md §6.10): the ACK the responder\n\
         // sends (credit count 31, \"invalid\"), the NAK \"PSN sequence error\".\n\
         localparam [7:0] OPCODE_RC_ACK = 8'h{RC_ACK:02X};\n\
         localparam [7:0] SYNDROME_ACK = 8'h{AETH_ACK:02X};\n\
         localparam [7:0] SYNDROME_NAK_PSN = 8'h{AETH_NAK_PSN_SEQ:02X};"
    )
    .unwrap();
    let [tag0, tag1] = METAROCE_SACK_TAG;
    writeln!(
        out,
        "\n// The selective ACK's extension after the AETH (golden/src/opcode.rs,\n\
         // SPEC.md §6.10): its tag, version and the flag of a drop past the window\n\
         // (golden/src/wire/ib.rs SackRepr::BEYOND); SACK_WINDOW PSNs in its bitmap\n\
         // (golden/src/responder.rs).\n\
         localparam [15:0] SACK_TAG = 16'h{tag0:02X}{tag1:02X};\n\
         localparam [7:0] SACK_VERSION = 8'd{METAROCE_SACK_VERSION};\n\
         localparam [7:0] SACK_FLAG_BEYOND = 8'd{};\n\
         localparam SACK_WINDOW = {SACK_WINDOW};",
        SackRepr::BEYOND
    )
    .unwrap();
    out.push_str("/* verilator lint_on UNUSEDPARAM */\n");
    out
}

#[test]
fn metaroce_defs_vh_is_current() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../rtl/metaroce_defs.vh");
    let want = metaroce_defs_vh();
    if std::env::var_os("METAROCE_BLESS").is_some() {
        std::fs::write(&path, &want).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(have == want, "rtl/metaroce_defs.vh is stale or missing: regenerate it with `{REGENERATE}`");
}
