//! Generated captures for the requester (`SPEC.md` §6.11): RC requests this
//! NIC sends and the ACKs and NAKs that come back, taken at its own port.
//! The answers are the golden responder's (§6.10), run at the far end of a
//! 1 µs link, and the retransmissions are the golden requester's own
//! requests (a NAK's go-back or its timer's): a packet or an ACK lost on the
//! way is all the capture makes up.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, VecDeque};

use metaroce_golden::cc_params::{AckMode, CcParams};
use metaroce_golden::cn_event::{NicConfig, QpContext};
use metaroce_golden::record::MacAddr;
use metaroce_golden::requester::{RetxCause, RetxRequest};
use metaroce_golden::responder::PSN_MASK;

use super::entry::Capture;
use super::responder::{Requester, ECT0, RESPONDER, SEND_ONLY};
use super::side::Side;
use crate::addresses::host_mac;
use crate::capture::{GenFrame, START_NS};

/// This NIC, the requester: host 2.
const LOCAL: u8 = 2;
/// One way across the link, ns.
const LINK_NS: u64 = 1_000;
/// Between two packets the NIC sends, ns.
const SEND_GAP_NS: u64 = 200;
/// Each side's remote QP is its peer's local QP plus this.
const REMOTE_OFFSET: u32 = 0x100;
/// `Flow::lost_resends` of a PSN none of whose resends arrives.
const EVERY_RESEND: u32 = u32::MAX;
/// How much later a duplicated answer comes the second time, ns.
const ECHO_NS: u64 = 8_000;

/// One flow of this NIC to the responder: the PSNs it sends, the first
/// transmissions lost on the way there, how many of a PSN's first resends
/// are ([`EVERY_RESEND`]: all), and the answers (by
/// their order among the flow's ACKs and NAKs) lost or duplicated on the
/// way back.
struct Flow {
    to: Requester,
    next_new: u32,
    end: u32,
    lost_first: BTreeSet<u32>,
    lost_resends: BTreeMap<u32, u32>,
    lost_answers: BTreeSet<usize>,
    echoed_answers: BTreeSet<usize>,
    /// PSNs the requester asked to send again, in order.
    resend: VecDeque<u32>,
    /// How many times each PSN was sent, first copy included.
    sends: BTreeMap<u32, u32>,
    answers: usize,
}

impl Flow {
    fn new(to: Requester, first: u32, packets: u32) -> Self {
        Flow {
            to,
            next_new: first,
            end: first.wrapping_add(packets) & PSN_MASK,
            lost_first: BTreeSet::new(),
            lost_resends: BTreeMap::new(),
            lost_answers: BTreeSet::new(),
            echoed_answers: BTreeSet::new(),
            resend: VecDeque::new(),
            sends: BTreeMap::new(),
            answers: 0,
        }
    }

    /// The next PSN to send (a resend first), with whether it is lost.
    fn take(&mut self) -> Option<(u32, bool)> {
        let psn = match self.resend.pop_front() {
            Some(psn) => psn,
            None if self.next_new != self.end => {
                let psn = self.next_new;
                self.next_new = (psn + 1) & PSN_MASK;
                psn
            }
            None => return None,
        };
        let sends = self.sends.entry(psn).or_insert(0);
        *sends += 1;
        let lost = match *sends - 1 {
            0 => self.lost_first.contains(&psn),
            resends => resends <= self.lost_resends.get(&psn).copied().unwrap_or(0),
        };
        Some((psn, lost))
    }

    /// The requester's request for the flow: go back and send the PSNs
    /// it names again; add a selective request's to those queued; or,
    /// retry exhausted, give up.
    fn retransmit(&mut self, request: &RetxRequest) {
        match request.cause {
            RetxCause::RetryExhausted => {
                self.resend.clear();
                self.next_new = self.end;
            }
            RetxCause::Selective => {
                for psn in request.psns() {
                    if !self.resend.contains(&psn) {
                        self.resend.push_back(psn);
                    }
                }
            }
            RetxCause::Nak | RetxCause::Timeout => {
                self.resend.clear();
                self.resend.extend(request.psns());
            }
        }
    }
}

enum Arrival {
    /// A request reaches the responder.
    AtResponder(Vec<u8>),
    /// An ACK or NAK reaches this NIC.
    AtRequester(Vec<u8>),
}

/// `cn/rc_requester.pcap`: this NIC (host 2) sends SEND ONLYs to host 1 on
/// three QPs, AckReq on every 16th, `ack_mode` rocev2 on both NICs with
/// ACKs coalesced every 8 packets.
/// - QP 0x120 → 0x20 (IPv4): PSN 105 lost once: the responder NAKs it,
///   and the requester goes back to 105 for everything after it; then 113,
///   the same again (its count from a next PSN that the retransmissions
///   did not move).
/// - QP 0x121 → 0x21 (IPv6 on VLAN 300): through the PSN wrap from
///   0xFFFFF8; the second ACK is lost on the way back, so a later one
///   acknowledges its packets too.
/// - QP 0x122 → 0x22 (IPv4 on VLAN 400): two losses in one window (PSNs 3
///   and 6): one NAK for 3, and the go-back-N resends 6 with the rest, so
///   the second loss costs nothing more. The NAK comes twice, the second
///   time 8 µs late, after an ACK of 7: a stale NAK, which asks nothing.
fn go_back_n_at_requester() -> Capture {
    let mut flows = vec![
        Flow::new(Requester { host: LOCAL, local_qp: 0x20, ipv6: false, vlan: None }, 100, 24),
        Flow::new(Requester { host: LOCAL, local_qp: 0x21, ipv6: true, vlan: Some(300) }, 0xFF_FFF8, 24),
        Flow::new(Requester { host: LOCAL, local_qp: 0x22, ipv6: false, vlan: Some(400) }, 0, 16),
    ];
    flows[0].lost_first.extend([105, 113]);
    flows[1].lost_answers.insert(1);
    flows[2].lost_first.extend([3, 6]);
    flows[2].echoed_answers.insert(0);
    let cc = CcParams { ack_mode: AckMode::Rocev2, ack_coalesce_pkts: 8, ..CcParams::default() };
    run_story("cn/rc_requester.pcap", flows, cc)
}

/// `cn/rc_timeout.pcap`: the retransmit timer (§6.11 rule 7), with
/// `retx_timeout` 1 (2 units of 4,096 ns: 8.2 µs, then 16.4 and 32.8 µs
/// as retries back it off) and `retry_cnt` 2; otherwise as
/// `cn/rc_requester.pcap`.
/// - QP 0x120 → 0x20 (IPv4): PSNs 8-15, the last four lost (a lost tail):
///   no later packet makes a NAK, and 8-11 are too few for an ACK, so only
///   the timer recovers them; the resend of 15 asks for the ACK.
/// - QP 0x121 → 0x21 (IPv6 on VLAN 300): PSNs 50-53; 52 is lost, 53's NAK
///   goes back, and every resend of 52 and 53 is lost (a black hole): the
///   timer goes back once more, then finds the retries used up.
/// - QP 0x122 → 0x22 (IPv4): 256 packets, nothing lost, whose sends and
///   ACKs carry the time on.
fn timer_at_requester() -> Capture {
    let mut flows = vec![
        Flow::new(Requester { host: LOCAL, local_qp: 0x20, ipv6: false, vlan: None }, 8, 8),
        Flow::new(Requester { host: LOCAL, local_qp: 0x21, ipv6: true, vlan: Some(300) }, 50, 4),
        Flow::new(Requester { host: LOCAL, local_qp: 0x22, ipv6: false, vlan: None }, 0, 256),
    ];
    flows[0].lost_first.extend(12..16);
    flows[1].lost_first.insert(52);
    flows[1].lost_resends.extend([(52, EVERY_RESEND), (53, EVERY_RESEND)]);
    let cc = CcParams {
        ack_mode: AckMode::Rocev2,
        ack_coalesce_pkts: 8,
        retx_timeout: 1,
        retry_cnt: 2,
        ..CcParams::default()
    };
    run_story("cn/rc_timeout.pcap", flows, cc)
}

/// The capture `name` of this NIC running `flows` against the responder,
/// both NICs with `cc`: the flows send in turn, one packet every 200 ns,
/// and each answer comes back 2 µs after its request was sent.
fn run_story(name: &str, mut flows: Vec<Flow>, cc: CcParams) -> Capture {
    let nic_of = |host: u8, mirrored: bool| NicConfig {
        local_mac: Some(MacAddr(host_mac(host)).to_string()),
        qps: flows
            .iter()
            .map(|f| {
                let (theirs, ours) = (f.to.local_qp, f.to.local_qp + REMOTE_OFFSET);
                let (local, remote) = if mirrored { (ours, theirs) } else { (theirs, ours) };
                QpContext { local, remote, priority: 0, rq_psn: None }
            })
            .collect(),
        cc,
    };
    let (nic, far) = (nic_of(LOCAL, true), nic_of(RESPONDER, false));
    let mut local = Side::new(&nic);
    let mut responder = Side::new(&far);

    let mut frames = Vec::new();
    let mut arrivals: BinaryHeap<Reverse<(u64, u64, usize)>> = BinaryHeap::new();
    let mut in_flight: Vec<Arrival> = Vec::new();
    let (mut now, mut turn) = (START_NS, 0usize);
    loop {
        // Everything that arrives before the next send, in time order.
        while let Some(&Reverse((at, _, index))) = arrivals.peek() {
            if at > now {
                break;
            }
            arrivals.pop();
            match std::mem::replace(&mut in_flight[index], Arrival::AtRequester(Vec::new())) {
                Arrival::AtResponder(data) => {
                    for (qp, ack) in answers(&mut responder, &data, at).acks {
                        let k = flow_of(&flows, qp);
                        let f = &mut flows[k];
                        f.answers += 1;
                        let answer = f.answers - 1;
                        let mut delays = vec![LINK_NS];
                        if f.echoed_answers.contains(&answer) {
                            delays.push(LINK_NS + ECHO_NS);
                        }
                        if f.lost_answers.contains(&answer) {
                            delays.clear();
                        }
                        for delay in delays {
                            in_flight.push(Arrival::AtRequester(ack.clone()));
                            arrivals.push(Reverse((at + delay, in_flight.len() as u64, in_flight.len() - 1)));
                        }
                    }
                }
                Arrival::AtRequester(data) => {
                    frames.push(GenFrame::at(at, data.clone()));
                    retransmit(&mut flows, answers(&mut local, &data, at).retx);
                }
            }
        }
        let sender = (0..flows.len())
            .map(|k| (turn + k) % flows.len())
            .find(|&k| !flows[k].resend.is_empty() || flows[k].next_new != flows[k].end);
        match sender {
            Some(k) => {
                turn = k + 1;
                let f = &mut flows[k];
                let (psn, lost) = f.take().expect("the flow has a PSN to send");
                let data = f.to.frame(SEND_ONLY, psn, psn % 16 == 15, ECT0);
                frames.push(GenFrame::at(now, data.clone()));
                // What sending makes (rate changes) is not in the capture;
                // the time it carries may run a timer out.
                retransmit(&mut flows, answers(&mut local, &data, now).retx);
                if !lost {
                    in_flight.push(Arrival::AtResponder(data));
                    arrivals.push(Reverse((now + LINK_NS, in_flight.len() as u64, in_flight.len() - 1)));
                }
                now += SEND_GAP_NS;
            }
            None if arrivals.is_empty() => break,
            None => now = arrivals.peek().map(|Reverse((at, _, _))| *at).expect("an arrival"),
        }
    }
    Capture { name: name.into(), frames, expect_error: None, nic: Some(nic) }
}

/// Hands the requester's requests to their flows.
fn retransmit(flows: &mut [Flow], requests: Vec<RetxRequest>) {
    for r in requests {
        let k = flow_of(flows, r.qp - REMOTE_OFFSET);
        flows[k].retransmit(&r);
    }
}

/// The flow whose responder QP is `qp`.
fn flow_of(flows: &[Flow], qp: u32) -> usize {
    flows.iter().position(|f| f.to.local_qp == qp).expect("an answer of one of the flows")
}

/// What one frame made a side send: ACKs and NAKs (the responder's QP and
/// the frame), and retransmit requests.
#[derive(Default)]
struct Answers {
    acks: Vec<(u32, Vec<u8>)>,
    retx: Vec<RetxRequest>,
}

/// Runs `side` on one frame and takes what it sent for it.
fn answers(side: &mut Side, data: &[u8], time_ns: u64) -> Answers {
    side.frame(data, time_ns);
    side.out.cnps.clear();
    side.out.rates.clear();
    Answers {
        acks: side.out.acks.drain(..).map(|a| (a.local_qp, a.frame)).collect(),
        retx: side.out.retx.drain(..).collect(),
    }
}

/// `cn/rc_selective_requester.pcap`: the requester in MetaRoCE mode
/// (§6.11 rules 8 and 9), both NICs with `ack_mode` metaroce, selective
/// ACKs every 8 packets or 2 µs, `retx_timeout` 2 (4 units: 16.4 µs);
/// otherwise as `cn/rc_requester.pcap`.
/// - QP 0x120 → 0x20 (IPv4): PSNs 100-131, 105, 107 and 110 lost: each
///   gap's selective ACK asks for its holes alone, once.
/// - QP 0x120: its last four packets (128-131) are too few for an ACK by
///   count and nothing follows them: the timer sends them again.
/// - QP 0x121 → 0x21 (IPv6 on VLAN 300): through the PSN wrap from
///   0xFFFFF8; 0xFFFFFE lost, and its first resend too: a later packet's
///   ACK shows it still missing, and rule 9 asks for it again.
/// - QP 0x122 → 0x22 (IPv4 on VLAN 400): 260 packets; 150 lost and its
///   first five resends too: rule 9 asks again and again, until packets
///   past the responder's 64-PSN window are dropped (beyond): a request
///   past the bitmap, the timer's go-backs, and an ACK from before a
///   go-back's copies arrived that asks for 150 again (a go-back moves
///   rtx back to where it starts).
fn selective_at_requester() -> Capture {
    let mut flows = vec![
        Flow::new(Requester { host: LOCAL, local_qp: 0x20, ipv6: false, vlan: None }, 100, 32),
        Flow::new(Requester { host: LOCAL, local_qp: 0x21, ipv6: true, vlan: Some(300) }, 0xFF_FFF8, 16),
        Flow::new(Requester { host: LOCAL, local_qp: 0x22, ipv6: false, vlan: Some(400) }, 0, 260),
    ];
    flows[0].lost_first.extend([105, 107, 110]);
    flows[1].lost_first.insert(0xFF_FFFE);
    flows[1].lost_resends.insert(0xFF_FFFE, 1);
    flows[2].lost_first.insert(150);
    flows[2].lost_resends.insert(150, 5);
    let cc = CcParams {
        ack_mode: AckMode::Metaroce,
        ack_coalesce_pkts: 8,
        ack_coalesce_ns: 2_000,
        retx_timeout: 2,
        ..CcParams::default()
    };
    run_story("cn/rc_selective_requester.pcap", flows, cc)
}

/// Every requester capture.
pub(super) fn captures() -> Vec<Capture> {
    vec![go_back_n_at_requester(), timer_at_requester(), selective_at_requester()]
}
