//! tshark as an outside oracle for the parser: for every RoCE frame and
//! every MAC Control frame whose opcode the parser reports (PAUSE, PFC, an
//! unknown opcode; not one cut inside its parameters) of every capture, each
//! field tshark decodes equals the golden record's, addresses included.
//! tshark 4.0 has no FECN/BECN fields and prints AtomicETH's VA and R_Key
//! under the RETH names; it does not verify the ICRC, only prints it.

mod common;

use std::process::Command;

use metaroce_cosim::capture::CaptureReader;
use metaroce_golden::{parse_frame, FrameClass, ParseRecord, ParserConfig};

/// (tshark field, golden value of the record).
type FieldMap = fn(&ParseRecord) -> Option<u64>;
const FIELDS: &[(&str, FieldMap)] = &[
    // Wireshark decodes an outer 0x88A8 tag as 802.1ad and an 0x8100 one as
    // 802.1Q; `outer_tag_field` picks the right one per frame.
    ("ieee8021ad.id", |r| r.vlan_id.map(u64::from)),
    ("ieee8021ad.priority", |r| r.vlan_pcp.map(u64::from)),
    ("infiniband.bth.opcode", |r| r.opcode.map(u64::from)),
    ("infiniband.bth.se", |r| r.se.map(u64::from)),
    ("infiniband.bth.m", |r| r.mig_req.map(u64::from)),
    ("infiniband.bth.padcnt", |r| r.pad_cnt.map(u64::from)),
    ("infiniband.bth.tver", |r| r.tver.map(u64::from)),
    ("infiniband.bth.p_key", |r| r.pkey.map(u64::from)),
    ("infiniband.bth.destqp", |r| r.dest_qp.map(u64::from)),
    ("infiniband.bth.a", |r| r.ack_req.map(u64::from)),
    ("infiniband.bth.psn", |r| r.psn.map(u64::from)),
    ("infiniband.reth.va", |r| r.reth_va.or(r.atomic_va)),
    ("infiniband.reth.r_key", |r| r.reth_rkey.or(r.atomic_rkey).map(u64::from)),
    ("infiniband.reth.dmalen", |r| r.reth_dma_len.map(u64::from)),
    ("infiniband.atomiceth.swapdt", |r| r.atomic_swap_add),
    ("infiniband.atomiceth.cmpdt", |r| r.atomic_compare),
    ("infiniband.aeth.syndrome", |r| r.aeth_syndrome.map(u64::from)),
    ("infiniband.aeth.msn", |r| r.aeth_msn.map(u64::from)),
    ("infiniband.atomicacketh.origremdt", |r| r.atomic_ack_orig),
    ("infiniband.deth.q_key", |r| r.deth_qkey.map(u64::from)),
    ("infiniband.deth.srcqp", |r| r.deth_src_qp.map(u64::from)),
    ("infiniband.immdt", |r| r.imm_data.map(u64::from)),
    ("infiniband.ieth", |r| r.ieth_rkey.map(u64::from)),
    ("infiniband.invariant.crc", |r| r.icrc.map(u64::from)),
    ("udp.srcport", |r| r.udp_sport.map(u64::from)),
    ("udp.dstport", |r| r.udp_dport.map(u64::from)),
    ("vlan.id", |r| r.vlan_id.map(u64::from)),
    ("vlan.priority", |r| r.vlan_pcp.map(u64::from)),
    ("ip.dsfield.dscp", |r| (r.ip_version == Some(4)).then_some(r.dscp?.into())),
    ("ip.dsfield.ecn", |r| (r.ip_version == Some(4)).then_some(r.ecn?.into())),
    ("ipv6.tclass.dscp", |r| (r.ip_version == Some(6)).then_some(r.dscp?.into())),
    ("ipv6.tclass.ecn", |r| (r.ip_version == Some(6)).then_some(r.ecn?.into())),
    ("macc.opcode", |r| r.mac_control_opcode.map(u64::from)),
    ("macc.pause_time", |r| r.pause_time.map(u64::from)),
    ("macc.cbfc.enbv", |r| r.pfc_enable.map(u64::from)),
    ("macc.cbfc.pause_time.c0", |r| Some(r.pfc_quanta?[0].into())),
    ("macc.cbfc.pause_time.c1", |r| Some(r.pfc_quanta?[1].into())),
    ("macc.cbfc.pause_time.c2", |r| Some(r.pfc_quanta?[2].into())),
    ("macc.cbfc.pause_time.c3", |r| Some(r.pfc_quanta?[3].into())),
    ("macc.cbfc.pause_time.c4", |r| Some(r.pfc_quanta?[4].into())),
    ("macc.cbfc.pause_time.c5", |r| Some(r.pfc_quanta?[5].into())),
    ("macc.cbfc.pause_time.c6", |r| Some(r.pfc_quanta?[6].into())),
    ("macc.cbfc.pause_time.c7", |r| Some(r.pfc_quanta?[7].into())),
];

/// Address fields, compared as text: tshark prints MACs as aa:bb:.. and
/// IPv6 compressed (RFC 5952), as the golden record's JSON does.
type TextMap = fn(&ParseRecord) -> Option<String>;
const TEXT_FIELDS: &[(&str, TextMap)] = &[
    ("eth.dst", |r| r.eth_dst.map(|m| m.to_string())),
    ("eth.src", |r| r.eth_src.map(|m| m.to_string())),
    ("ip.src", |r| (r.ip_version == Some(4)).then(|| r.ip_src.map(|a| a.to_string())).flatten()),
    ("ip.dst", |r| (r.ip_version == Some(4)).then(|| r.ip_dst.map(|a| a.to_string())).flatten()),
    ("ipv6.src", |r| (r.ip_version == Some(6)).then(|| r.ip_src.map(|a| a.to_string())).flatten()),
    ("ipv6.dst", |r| (r.ip_version == Some(6)).then(|| r.ip_dst.map(|a| a.to_string())).flatten()),
];

/// Whether tshark's `field` describes what the golden record calls it in
/// this frame: the VLAN fields only for the dissector of the outer tag.
fn field_applies(field: &str, frame: &[u8]) -> bool {
    let outer_is_8021ad = frame.get(12..14) == Some(&[0x88, 0xA8]);
    match field {
        "ieee8021ad.id" | "ieee8021ad.priority" => outer_is_8021ad,
        "vlan.id" | "vlan.priority" => !outer_is_8021ad,
        _ => true,
    }
}

/// A tshark value: decimal, 0x hex, True/False, or bytes as hex digits.
fn tshark_number(field: &str, text: &str) -> u64 {
    let t = text.trim();
    match t {
        "True" => return 1,
        "False" => return 0,
        _ => {}
    }
    let is_bytes = matches!(field, "infiniband.immdt" | "infiniband.ieth");
    let parsed = if let Some(hex) = t.strip_prefix("0x") {
        u64::from_str_radix(hex, 16)
    } else if is_bytes {
        u64::from_str_radix(&t.replace(':', ""), 16)
    } else {
        t.parse()
    };
    parsed.unwrap_or_else(|_| panic!("tshark printed `{t}` for {field}"))
}

#[test]
fn golden_records_agree_with_tshark_on_every_roce_and_mac_control_frame() {
    let tshark = std::env::var("TSHARK").unwrap_or_else(|_| "tshark".into());
    let mut compared = 0usize;
    let mut mac_control_compared = 0usize;
    for capture in common::captures() {
        let mut cmd = Command::new(&tshark);
        cmd.arg("-r").arg(&capture);
        // Classify by destination port only, as the parser does (REFERENCE.md).
        cmd.args(["-d", "udp.port==4791,infiniband", "--disable-protocol", "tftp"]);
        cmd.args(["-T", "fields", "-E", "separator=\t", "-E", "occurrence=f", "-e", "frame.number"]);
        for field in FIELDS.iter().map(|f| f.0).chain(TEXT_FIELDS.iter().map(|f| f.0)) {
            cmd.args(["-e", field]);
        }
        let out = cmd.output().unwrap_or_else(|e| {
            panic!("cannot run {tshark} ({e}): the oracle needs tshark, `apt-get install tshark` or ci/setup.sh")
        });
        assert!(
            out.status.success(),
            "{tshark} failed on {}: {}",
            capture.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        let decoded = String::from_utf8(out.stdout).unwrap();
        let lines: Vec<&str> = decoded.lines().collect();

        let frames: Vec<_> = CaptureReader::open(&capture).unwrap().map(Result::unwrap).collect();
        assert_eq!(lines.len(), frames.len(), "{}: tshark saw a different number of frames", capture.display());
        for (frame, line) in frames.iter().zip(lines) {
            let record = parse_frame(&frame.data, frame.mac_error, &ParserConfig::default());
            let mac_control = record.mac_control_opcode.is_some();
            if record.class != FrameClass::Roce && !mac_control {
                continue;
            }
            let columns: Vec<&str> = line.split('\t').collect();
            let at = format!("{} frame {}", capture.display(), frame.index);
            assert_eq!(columns[0], frame.index.to_string(), "{at}");
            let column = |name: &str| columns[1 + FIELDS.iter().position(|(f, _)| *f == name).unwrap()];
            if mac_control {
                assert!(!column("macc.opcode").is_empty(), "{at}: golden says MAC Control, tshark decodes none");
            } else {
                assert!(!column("infiniband.bth.opcode").is_empty(), "{at}: golden says RoCE, tshark decodes no BTH");
            }
            for ((field, golden), text) in FIELDS.iter().zip(&columns[1..]) {
                let expected = golden(&record);
                if text.is_empty() || !field_applies(field, &frame.data) {
                    // tshark leaves out fields it does not show (the ICRC of a
                    // CNP, say); a field it shows must be one the golden has.
                    continue;
                }
                assert_eq!(expected, Some(tshark_number(field, text)), "{at}: {field} (tshark `{text}`)");
                compared += 1;
                mac_control_compared += usize::from(field.starts_with("macc."));
            }
            for ((field, golden), text) in TEXT_FIELDS.iter().zip(&columns[1 + FIELDS.len()..]) {
                if !text.is_empty() {
                    assert_eq!(golden(&record).as_deref(), Some(*text), "{at}: {field}");
                    compared += 1;
                }
            }
        }
    }
    println!("tshark agreed on {compared} field values, {mac_control_compared} of them MAC Control fields");
    assert!(compared > 300_000, "only {compared} field values compared");
    // 16 PFC frames of 10 fields, 6 PAUSE frames of 2 and 9 unknown opcodes.
    assert!(mac_control_compared >= 180, "only {mac_control_compared} MAC Control field values compared");
}
