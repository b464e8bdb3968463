//! `metaroce nic init`: a starting NIC file (`SPEC.md` §6.1) for a
//! capture. The local MAC is the most common destination of its RoCE
//! frames (or the one given); every local QP that receives is listed; its
//! remote QP comes from the reverse direction where the capture shows it
//! (the DETH source QP, or an ACK, atomic ACK or READ response whose PSN
//! answers a request), else it is [`REMOTE_QP_PLACEHOLDER`]. What it cannot
//! tell (the local QP of sent frames without responses) it says in
//! `comment`. The `cc` section holds
//! every parameter's default and, in `comment`, where each comes from.

use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;
use std::path::Path;

use metaroce_golden::cc_params::{CcParam, CcParams, CC_PARAMS};
use metaroce_golden::cn::DEFAULT_QP_COUNT;
use metaroce_golden::opcode::CNP;
use metaroce_golden::record::MacAddr;
use metaroce_golden::{parse_frame, FrameClass, ParserConfig};
use serde::Serialize;

use crate::capture::{CaptureReader, Frame};

/// The remote QP of a context the capture does not show: the highest
/// 24-bit QP, which no verbs stack hands out. The NP still answers CE
/// marks with it (so CNPs are counted), but their DestQP is wrong until it
/// is replaced by the sender's QP.
pub const REMOTE_QP_PLACEHOLDER: u32 = 0xFF_FFFF;

/// The NIC file as `nic init` writes it: `NicConfig`'s fields, each part
/// with a `comment` (which `NicFile::read` skips).
#[derive(Debug, Serialize)]
pub struct NicDraft {
    pub comment: Vec<String>,
    pub local_mac: String,
    pub qps: Vec<QpDraft>,
    pub cc: CcDraft,
}

#[derive(Debug, Serialize)]
pub struct QpDraft {
    pub local: u32,
    pub remote: u32,
    pub comment: String,
}

#[derive(Debug, Serialize)]
pub struct CcDraft {
    pub comment: Vec<String>,
    #[serde(flatten)]
    pub params: CcParams,
}

/// What a RoCE frame tells about QPs.
struct Seen {
    eth_dst: [u8; 6],
    eth_src: [u8; 6],
    ip_src: Option<IpAddr>,
    ip_dst: Option<IpAddr>,
    opcode: u8,
    dest_qp: u32,
    psn: u32,
    deth_src_qp: Option<u32>,
}

/// RC and XRC ACK, atomic ACK and READ responses: they carry the PSN of the
/// request they answer (the first READ response, a coalesced ACK the last).
fn is_response(opcode: u8) -> bool {
    matches!(opcode >> 5, 0 | 5) && (0x0D..=0x12).contains(&(opcode & 0x1F))
}

fn response_kind(opcode: u8) -> &'static str {
    match opcode & 0x1F {
        0x11 => "ACKs",
        0x12 => "atomic ACKs",
        _ => "READ responses",
    }
}

/// Reads every frame; an unreadable capture is an error naming file and frame.
fn read_roce(capture: &Path, parser: &ParserConfig) -> Result<Vec<Seen>, String> {
    let mut reader = CaptureReader::open(capture).map_err(|e| e.to_string())?;
    let mut frame = Frame::default();
    let mut seen = Vec::new();
    while reader.read_next(&mut frame).map_err(|e| e.to_string())? {
        let r = parse_frame(&frame.data, frame.mac_error, parser);
        if r.class != FrameClass::Roce {
            continue;
        }
        if let (Some(dst), Some(src), Some(opcode), Some(dest_qp)) = (r.eth_dst, r.eth_src, r.opcode, r.dest_qp) {
            seen.push(Seen {
                eth_dst: dst.0,
                eth_src: src.0,
                ip_src: r.ip_src,
                ip_dst: r.ip_dst,
                opcode,
                dest_qp,
                psn: r.psn.unwrap_or(0),
                deth_src_qp: r.deth_src_qp,
            });
        }
    }
    Ok(seen)
}

/// The most common destination MAC (ties: the lowest).
fn most_common_destination(seen: &[Seen]) -> Option<[u8; 6]> {
    let mut counts: BTreeMap<[u8; 6], u64> = BTreeMap::new();
    for s in seen {
        *counts.entry(s.eth_dst).or_default() += 1;
    }
    counts.into_iter().max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0))).map(|(mac, _)| mac)
}

/// A (local, remote) pairing and what showed it.
#[derive(Default)]
struct Evidence {
    votes: BTreeMap<(u32, u32), (u64, &'static str)>,
}

impl Evidence {
    fn vote(&mut self, local: u32, remote: u32, source: &'static str) {
        self.votes.entry((local, remote)).or_insert((0, source)).0 += 1;
    }

    /// The remote QP with the most votes for `local`, and its source.
    fn best(&self, local: u32) -> Option<(u32, u64, &'static str)> {
        self.votes
            .range((local, 0)..=(local, u32::MAX))
            .max_by_key(|(&(_, remote), &(n, _))| (n, std::cmp::Reverse(remote)))
            .map(|(&(_, remote), &(n, source))| (remote, n, source))
    }
}

/// A starting NIC file for `capture`.
pub fn nic_init(capture: &Path, local_mac: Option<[u8; 6]>, parser: &ParserConfig) -> Result<NicDraft, String> {
    let seen = read_roce(capture, parser)?;
    let (mac, mac_source) = match local_mac {
        Some(mac) => (mac, "given"),
        None => (
            most_common_destination(&seen)
                .ok_or_else(|| format!("{}: no RoCE frame, so no local MAC or QP to find", capture.display()))?,
            "the most common destination of its RoCE frames (for a capture taken at a sender, give --local-mac)",
        ),
    };
    let received = |s: &Seen| s.eth_dst == mac;
    let sent = |s: &Seen| s.eth_src == mac && s.eth_dst != mac;

    // Every local QP that receives, with its frame count, in QP order.
    let mut locals: BTreeMap<u32, u64> = BTreeMap::new();
    for s in seen.iter().filter(|s| received(s) && s.opcode != CNP) {
        *locals.entry(s.dest_qp).or_default() += 1;
    }
    let mut evidence = Evidence::default();
    for s in seen.iter().filter(|s| received(s)) {
        if let Some(src_qp) = s.deth_src_qp {
            evidence.vote(s.dest_qp, src_qp, "DETH source QP");
        }
    }
    // Requests by (from, to, PSN): a response the other way names both ends.
    let mut requests: HashMap<(Option<IpAddr>, Option<IpAddr>, u32), u32> = HashMap::new();
    for s in seen.iter().filter(|s| !is_response(s.opcode) && s.opcode != CNP) {
        requests.insert((s.ip_src, s.ip_dst, s.psn), s.dest_qp);
    }
    for s in seen.iter().filter(|s| is_response(s.opcode)) {
        let Some(&request_qp) = requests.get(&(s.ip_dst, s.ip_src, s.psn)) else { continue };
        if received(s) {
            evidence.vote(s.dest_qp, request_qp, response_kind(s.opcode));
            locals.entry(s.dest_qp).or_default();
        } else if sent(s) {
            evidence.vote(request_qp, s.dest_qp, response_kind(s.opcode));
        }
    }
    let mut qps = Vec::new();
    let mut comment = vec![
        format!("Written by `metaroce nic init {}` (SPEC.md 6.1).", capture.display()),
        format!("local_mac: {mac_source}."),
        format!("A remote QP of {REMOTE_QP_PLACEHOLDER} is a placeholder: the capture does not show it; replace it with the sender's QP (CNPs go to it)."),
        "Fields named comment are skipped when the file is read.".to_string(),
    ];
    let mut beyond = Vec::new();
    for (&local, &frames) in &locals {
        if local as usize >= DEFAULT_QP_COUNT {
            beyond.push(local.to_string());
            continue;
        }
        let (remote, why) = match evidence.best(local) {
            Some((remote, n, source)) => (remote, format!("{frames} frame(s) received; remote from {n} {source}")),
            None => (
                REMOTE_QP_PLACEHOLDER,
                format!("{frames} frame(s) received; PLACEHOLDER remote: no frame the other way shows it"),
            ),
        };
        qps.push(QpDraft { local, remote, comment: why });
    }
    if !seen.iter().any(received) {
        comment.push(format!("No RoCE frame is to {}: no local QP to list.", MacAddr(mac)));
    }
    if !beyond.is_empty() {
        comment
            .push(format!("Local QP(s) {} left out: the block has QPs 0..{DEFAULT_QP_COUNT} only.", beyond.join(", ")));
    }
    let mut orphans: Vec<String> = Vec::new();
    for s in seen.iter().filter(|s| sent(s) && s.opcode != CNP) {
        let name = s.dest_qp.to_string();
        if !qps.iter().any(|q| q.remote == s.dest_qp) && !orphans.contains(&name) {
            orphans.push(name);
        }
    }
    if !orphans.is_empty() {
        comment.push(format!(
            "Sent frames go to remote QP(s) {} whose local QP the capture does not show: add {{\"local\": L, \"remote\": R}} for each, or the reaction point does not count them.",
            orphans.join(", ")
        ));
    }
    let mut cnp_locals: Vec<String> = Vec::new();
    for s in seen.iter().filter(|s| received(s) && s.opcode == CNP) {
        let name = s.dest_qp.to_string();
        if !locals.contains_key(&s.dest_qp) && !cnp_locals.contains(&name) {
            cnp_locals.push(name);
        }
    }
    if !cnp_locals.is_empty() {
        comment.push(format!(
            "Local QP(s) {} receive CNPs: each is the local QP of a remote QP above that this NIC sends to.",
            cnp_locals.join(", ")
        ));
    }
    let params = CcParams::default();
    let cc_comment = CC_PARAMS.iter().filter(|p| !p.omit_default).map(cc_param_comment).collect();
    Ok(NicDraft { comment, local_mac: MacAddr(mac).to_string(), qps, cc: CcDraft { comment: cc_comment, params } })
}

/// One `cc` comment line: the parameter's doc, unit and the source of its
/// default, from the register table (`SPEC.md` §6.2).
fn cc_param_comment(p: &CcParam) -> String {
    let unit = if p.unit.is_empty() { String::new() } else { format!(" ({})", p.unit) };
    format!("{}{unit}: {} Default from: {}.", p.name, p.doc, p.source)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_cc_parameter_has_a_source() {
        let value = serde_json::to_value(CcParams::default()).unwrap();
        let names: Vec<&str> = value.as_object().unwrap().keys().map(String::as_str).collect();
        let mut sourced: Vec<&str> = CC_PARAMS.iter().filter(|p| !p.omit_default).map(|p| p.name).collect();
        let mut names = names;
        names.sort();
        sourced.sort();
        assert_eq!(names, sourced);
    }

    #[test]
    fn responses_are_told_from_requests() {
        assert!(is_response(0x11) && is_response(0x0D) && is_response(0x10) && is_response(0xB1));
        assert!(!is_response(0x0A) && !is_response(0x04) && !is_response(0x71) && !is_response(CNP));
    }
}
