//! Generated captures for the responder (`SPEC.md` §6.10): RC requests at
//! the responder's port with losses, reordering, duplicates after a lost
//! ACK, coalescing and a PSN wrap, each with the NIC file that turns the
//! responder on, in go-back-N and in selective-ACK mode.

use metaroce_golden::cc_params::{AckMode, CcMode, CcParams};
use metaroce_golden::cn_event::{NicConfig, QpContext};
use metaroce_golden::record::MacAddr;

use super::entry::Capture;
use super::side::Side;
use crate::addresses::host_mac;
use crate::blocks::cn::replay_order;
use crate::capture::{GenFrame, START_NS};
use crate::stimuli::RoceFrame;

const WRITE_FIRST: u8 = 0x06;
const WRITE_MIDDLE: u8 = 0x07;
const WRITE_LAST: u8 = 0x08;
pub(super) const SEND_ONLY: u8 = 0x04;
const READ_REQUEST: u8 = 0x0C;
pub(super) const ECT0: u8 = 2;
const CE: u8 = 3;
/// The responder: host 1.
pub(super) const RESPONDER: u8 = 1;

/// One requester's flow to the responder.
#[derive(Debug, Clone, Copy)]
pub(super) struct Requester {
    pub(super) host: u8,
    /// BTH DestQP: the responder's local QP.
    pub(super) local_qp: u32,
    pub(super) ipv6: bool,
    pub(super) vlan: Option<u16>,
}

impl Requester {
    pub(super) fn frame(&self, op: u8, psn: u32, ack_req: bool, ecn: u8) -> Vec<u8> {
        let payload = if op == READ_REQUEST { 0 } else { 512 };
        let mut f = RoceFrame::new(op, psn).with_payload(payload, psn);
        f.hosts = (self.host, RESPONDER);
        f.bth.dest_qp = self.local_qp;
        f.bth.psn = psn & 0xFF_FFFF;
        f.bth.ack_req = ack_req;
        f.ecn = ecn;
        f.udp_sport = 0xC000 | self.local_qp as u16;
        if self.ipv6 {
            f = f.ipv6(0);
        }
        if let Some(vid) = self.vlan {
            f = f.tagged(&[(0x8100, 3, vid)]);
        }
        f.build()
    }
}

/// Frames at the responder's port, 200 ns apart unless a step says otherwise.
struct Timeline {
    frames: Vec<GenFrame>,
    now: u64,
}

impl Timeline {
    fn push(&mut self, data: Vec<u8>) {
        self.now += 200;
        self.frames.push(GenFrame::at(self.now, data));
    }
}

/// A 4-packet WRITE of `r` from `psn` (AckReq on its last), its packets
/// `keep` of the four (a lost packet is not there), the last CE-marked when
/// `ce`.
fn write(t: &mut Timeline, r: &Requester, psn: u32, keep: &[u32], ce: bool) {
    const OPS: [u8; 4] = [WRITE_FIRST, WRITE_MIDDLE, WRITE_MIDDLE, WRITE_LAST];
    for &k in keep {
        let ecn = if ce && k == 3 { CE } else { ECT0 };
        t.push(r.frame(OPS[k as usize], psn + k, k == 3, ecn));
    }
}

/// `rc_go_back_n.pcap`: four requesters at the responder (host 1),
/// `ack_mode` rocev2, ACKs coalesced every 16 packets, MetaRoCE CNPs 4 µs
/// apart.
/// - QP 0x20 (IPv4, host 2): WRITEs from PSN 100; a lost packet (NAK),
///   two more behind it (silence), go-back-N from the NAKed PSN; the last
///   packet of a message CE-marked now and then: its CNP (built after the
///   extent's division) and its ACK leave at the same tick.
/// - QP 0x21 (IPv6 on VLAN 300, host 3, `rq_psn` 0xFFFFFE): SEND ONLYs
///   through the PSN wrap, AckReq on every second; the last ACK is lost, so
///   the requester times out and sends the last two again (duplicates).
/// - QP 0x22 (IPv4 on VLAN 400, host 4): 40 SEND ONLYs without AckReq:
///   an ACK every 16th.
/// - QP 0x23 (IPv6, host 5): two packets swapped (a NAK, then the first in
///   order, the second again after the go-back-N), and a READ request,
///   which the responder does not answer.
/// - QP 0x30 (host 6): not in the QP table: no ACK, and a warning.
fn go_back_n() -> Capture {
    let [r0, r1, r2, r3, stray] = requesters();
    let mut t = Timeline { frames: Vec::new(), now: START_NS };

    write(&mut t, &r0, 100, &[0, 1, 2, 3], false);
    for k in 0..4u32 {
        t.push(r1.frame(SEND_ONLY, 0xFF_FFFE + k, k % 2 == 1, ECT0));
    }
    // QP 0x20 loses PSN 105; 106 and 107 follow (one NAK for 105, then
    // nothing), and the NAK brings 105-107 again.
    write(&mut t, &r0, 104, &[0, 2, 3], true);
    t.push(r3.frame(SEND_ONLY, 50, true, ECT0));
    t.push(r3.frame(SEND_ONLY, 52, true, ECT0));
    t.push(r3.frame(SEND_ONLY, 51, true, ECT0));
    t.push(r3.frame(READ_REQUEST, 52, true, ECT0));
    t.now += 10_000;
    write(&mut t, &r0, 104, &[1, 2, 3], true);
    t.push(r3.frame(SEND_ONLY, 52, true, ECT0));
    for k in 0..40u32 {
        t.push(r2.frame(SEND_ONLY, 7_000 + k, false, ECT0));
        if k % 8 == 0 {
            t.push(stray.frame(SEND_ONLY, k, true, ECT0));
        }
    }
    // QP 0x21's requester heard no ACK for PSN 1 (lost on the way back):
    // after its timeout it sends PSNs 0 and 1 again.
    t.now += 100_000;
    t.push(r1.frame(SEND_ONLY, 0, false, ECT0));
    t.push(r1.frame(SEND_ONLY, 1, true, ECT0));
    t.push(r1.frame(SEND_ONLY, 2, true, ECT0));
    write(&mut t, &r0, 108, &[0, 1, 2, 3], true);

    let cc = CcParams {
        mode: CcMode::Metaroce,
        ack_mode: AckMode::Rocev2,
        ack_coalesce_pkts: 16,
        np_min_time_between_cnps: 4,
        ..CcParams::default()
    };
    let nic = responder_nic(cc);
    Capture { name: "cn/rc_go_back_n.pcap".into(), frames: t.frames, expect_error: None, nic: Some(nic) }
}

/// `rc_selective.pcap`: four requesters at the responder (host 1),
/// `ack_mode` metaroce (selective ACKs, `SPEC.md` §6.10), coalesced every 8
/// packets or 2 µs after the oldest one not yet acknowledged.
/// - QP 0x20 (IPv4, host 2): SEND ONLYs from PSN 100; 103 and 107 lost,
///   each gap acknowledged at once by the packet after it; 103 and 107
///   again (the holes only), the last with AckReq.
/// - QP 0x21 (IPv6 on VLAN 300, host 3, `rq_psn` 0xFFFFFE): through the
///   PSN wrap with 0 lost, then 0 again.
/// - QP 0x22 (IPv4 on VLAN 400, host 4): 20 SEND ONLYs without AckReq, an
///   ACK every 8th; then packets 2.2 µs apart, an ACK every second by time.
/// - QP 0x23 (IPv6, host 5): 52 ahead of 51; 116 and 117 past the 64-PSN
///   window (dropped, reported once), a duplicate of 52, then 51, which
///   moves the expected PSN past 52; 116 again, now in the window.
/// - QP 0x30 (host 6): not in the QP table: no ACK, and a warning.
fn selective() -> Capture {
    let [r0, r1, r2, r3, stray] = requesters();
    let mut t = Timeline { frames: Vec::new(), now: START_NS };

    for psn in (100..112).filter(|p| ![103, 107].contains(p)) {
        t.push(r0.frame(SEND_ONLY, psn, false, ECT0));
    }
    for psn in [0xFF_FFFE, 0xFF_FFFF, 1, 2] {
        t.push(r1.frame(SEND_ONLY, psn, false, ECT0));
    }
    t.push(r3.frame(SEND_ONLY, 50, false, ECT0));
    t.push(r3.frame(SEND_ONLY, 52, false, ECT0));
    t.push(r3.frame(SEND_ONLY, 116, false, ECT0));
    t.push(r3.frame(SEND_ONLY, 117, true, ECT0));
    t.push(stray.frame(SEND_ONLY, 1, true, ECT0));
    t.push(r0.frame(SEND_ONLY, 103, false, ECT0));
    t.push(r0.frame(SEND_ONLY, 107, true, CE));
    t.push(r1.frame(SEND_ONLY, 0, true, ECT0));
    t.push(r3.frame(SEND_ONLY, 52, false, ECT0));
    t.push(r3.frame(SEND_ONLY, 51, false, ECT0));
    t.push(r3.frame(SEND_ONLY, 116, true, ECT0));
    for psn in 7_000..7_020 {
        t.push(r2.frame(SEND_ONLY, psn, false, ECT0));
    }
    for psn in 7_020..7_025 {
        t.now += 2_000;
        t.push(r2.frame(SEND_ONLY, psn, false, ECT0));
    }

    let cc = CcParams {
        mode: CcMode::Metaroce,
        ack_mode: AckMode::Metaroce,
        ack_coalesce_pkts: 8,
        ack_coalesce_ns: 2_000,
        np_min_time_between_cnps: 4,
        ..CcParams::default()
    };
    let nic = responder_nic(cc);
    Capture { name: "cn/rc_selective.pcap".into(), frames: t.frames, expect_error: None, nic: Some(nic) }
}

/// What the golden CN block sends for `capture` (its NIC's setup), at the
/// emit times: the ACKs, NAKs and CNPs, a capture of their own, so that
/// the tshark oracle reads every field of them (`SPEC.md` §6.10).
fn replies(capture: &Capture, name: &str) -> Capture {
    let mut side = Side::new(capture.nic.as_ref().expect("a CN capture has its NIC"));
    for frame in &capture.frames {
        side.frame(&frame.data, frame.time_ns.expect("the responder's captures are timed"));
    }
    let out = std::mem::take(&mut side.out);
    let mut sent: Vec<(u64, Vec<u8>)> = out.cnps.into_iter().map(|c| (c.time, c.frame)).collect();
    sent.extend(out.acks.into_iter().map(|a| (a.time, a.frame)));
    let time = &side.time;
    let frames = replay_order(sent).into_iter().map(|(tick, data, _)| GenFrame::at(time.time_ns(tick), data)).collect();
    Capture { name: name.into(), frames, expect_error: None, nic: None }
}

/// Every responder capture.
pub(super) fn captures() -> Vec<Capture> {
    let requests = go_back_n();
    let answers = replies(&requests, "rc_replies.pcap");
    let selective_requests = selective();
    let selective_answers = replies(&selective_requests, "rc_selective_replies.pcap");
    vec![requests, answers, selective_requests, selective_answers]
}

/// The requesters of both captures: QPs 0x20-0x23 as `responder_nic`
/// loads them (IPv4 and IPv6, with and without VLAN tags), and 0x30, which
/// is not in its table.
fn requesters() -> [Requester; 5] {
    [
        Requester { host: 2, local_qp: 0x20, ipv6: false, vlan: None },
        Requester { host: 3, local_qp: 0x21, ipv6: true, vlan: Some(300) },
        Requester { host: 4, local_qp: 0x22, ipv6: false, vlan: Some(400) },
        Requester { host: 5, local_qp: 0x23, ipv6: true, vlan: None },
        Requester { host: 6, local_qp: 0x30, ipv6: false, vlan: None },
    ]
}

/// The responder's NIC in both captures: QPs 0x20-0x23, 0x21's first
/// expected PSN just before the wrap.
fn responder_nic(cc: CcParams) -> NicConfig {
    let context = |local: u32, remote: u32, rq_psn: Option<u32>| QpContext { local, remote, priority: 0, rq_psn };
    NicConfig {
        local_mac: Some(MacAddr(host_mac(RESPONDER)).to_string()),
        qps: vec![
            context(0x20, 0x520, None),
            context(0x21, 0x521, Some(0xFF_FFFE)),
            context(0x22, 0x522, None),
            context(0x23, 0x523, None),
        ],
        cc,
    }
}
