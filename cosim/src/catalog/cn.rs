//! Generated captures for the congestion-notification block (`SPEC.md`
//! §6.6): incast and all-to-all traffic with CE marks from a simple queue
//! model, and CNP streams that walk a sender through every DCQCN stage.
//! Each comes with the NIC file it is meant to be replayed with.

use metaroce_golden::cc_params::{AckMode, CcMode, CcParams};
use metaroce_golden::cn_event::{CnEvent, CnEventKind, NicConfig, QpContext};
use metaroce_golden::frame::mac_control_frame;
use metaroce_golden::notify::cnp_frame;
use metaroce_golden::record::MacAddr;
use metaroce_golden::wire::MacControlRepr;

use super::entry::Capture;
use crate::addresses::{host_ipv4, host_ipv6, host_mac};
use crate::capture::{GenFrame, START_NS};
use crate::dice::splitmix64;
use crate::stimuli::RoceFrame;

const RC_SEND_ONLY: u8 = 0x04;
const UD_SEND_ONLY: u8 = 0x64;
const ECT0: u8 = 2;
const CE: u8 = 3;
const US: u64 = 1_000;

/// One direction of a QP's traffic.
#[derive(Debug, Clone, Copy)]
struct Flow {
    src: u8,
    dst: u8,
    /// BTH DestQP: the QP at `dst`.
    dest_qp: u32,
    ipv6: bool,
    vlan: Option<u16>,
    /// UD: the DETH source QP (RC when `None`).
    ud_src_qp: Option<u32>,
}

impl Flow {
    fn rc(src: u8, dst: u8, dest_qp: u32) -> Self {
        Flow { src, dst, dest_qp, ipv6: false, vlan: None, ud_src_qp: None }
    }

    fn frame(&self, psn: u32, payload: usize, ecn: u8) -> Vec<u8> {
        let op = if self.ud_src_qp.is_some() { UD_SEND_ONLY } else { RC_SEND_ONLY };
        let mut f = RoceFrame::new(op, psn).with_payload(payload, psn);
        f.hosts = (self.src, self.dst);
        f.bth.dest_qp = self.dest_qp;
        f.bth.psn = psn & 0xFF_FFFF;
        f.ecn = ecn;
        f.udp_sport = 0xC000 | (self.dest_qp as u16 & 0x3FFF);
        if let Some(src_qp) = self.ud_src_qp {
            // DETH: Q_Key, reserved, SrcQP.
            f.ext[5..8].copy_from_slice(&src_qp.to_be_bytes()[1..]);
        }
        if self.ipv6 {
            f = f.ipv6(0);
        }
        if let Some(vid) = self.vlan {
            f = f.tagged(&[(0x8100, 3, vid)]);
        }
        f.build()
    }

    /// The CNP the receiver of this flow sends back to `qp` at the sender.
    fn cnp(&self, qp: u32, extent: Option<u16>) -> Vec<u8> {
        let mut ev = CnEvent::new(0, CnEventKind::RxData, 0);
        ev.eth_src = host_mac(self.src);
        ev.eth_dst = host_mac(self.dst);
        if self.ipv6 {
            ev.ipv6 = true;
            ev.ip_src = host_ipv6(self.src);
            ev.ip_dst = host_ipv6(self.dst);
        } else {
            ev.ip_src[12..].copy_from_slice(&host_ipv4(self.src));
            ev.ip_dst[12..].copy_from_slice(&host_ipv4(self.dst));
        }
        ev.vlan_id = self.vlan;
        ev.udp_sport = 0xC000 | (self.dest_qp as u16 & 0x3FFF);
        let mut regs = CcParams::default().registers().expect("defaults are valid");
        regs.metaroce = extent.is_some();
        cnp_frame(&ev, qp, extent, &regs)
    }
}

/// splitmix64 of a frame number and a salt: the generator's dice.
fn dice(n: u64, salt: u64) -> u64 {
    splitmix64(n << 16 ^ salt)
}

/// RED marking on a queue of `queue` bytes (Kmin 10 KB, Kmax 100 KB,
/// Pmax 0.5 between them, every packet above Kmax): CE or ECT(0).
fn red_mark(queue: u64, n: u64, salt: u64) -> u8 {
    const KMIN: u64 = 10_000;
    const KMAX: u64 = 100_000;
    let per_mille = if queue <= KMIN {
        0
    } else if queue >= KMAX {
        1000
    } else {
        (queue - KMIN) * 500 / (KMAX - KMIN)
    };
    if dice(n, salt) % 1000 < per_mille {
        CE
    } else {
        ECT0
    }
}

fn nic(local: u8, qps: &[(u32, u32)], cc: CcParams) -> NicConfig {
    NicConfig {
        local_mac: Some(MacAddr(host_mac(local)).to_string()),
        qps: qps.iter().map(|&(local, remote)| QpContext { local, remote, priority: 0, rq_psn: None }).collect(),
        cc,
    }
}

fn capture(name: &str, frames: Vec<GenFrame>, nic: NicConfig) -> Capture {
    Capture { name: format!("cn/{name}"), frames, expect_error: None, nic: Some(nic) }
}

/// Every congestion-notification capture.
pub(super) fn captures() -> Vec<Capture> {
    let (incast_frames, incast_nic) = incast();
    let metaroce_nic = NicConfig { cc: CcParams { mode: CcMode::Metaroce, ..incast_nic.cc }, ..incast_nic.clone() };
    vec![
        capture("incast_8to1.pcap", incast_frames.clone(), incast_nic),
        capture("incast_8to1_metaroce.pcap", incast_frames, metaroce_nic),
        all_to_all(),
        dcqcn_stages(),
        dcqcn_clamp_first_cnp(),
        dcqcn_fast_alpha(),
        metaroce_sender(),
        idle_gaps_20s(),
        pfc_sender(),
    ]
    .into_iter()
    .chain(closed_loop_captures())
    .collect()
}

/// Captures from the closed loop (`SPEC.md` §9): the receiver of a DCQCN
/// 4:1 incast and the sender of the MetaRoCE one that got the most CNPs,
/// CNPs every 4 µs, marking from 20 kB, starts jittered: what the NICs
/// saw, at their ticks. Then the same DCQCN incast with the NICs'
/// go-back-N on and 2 % loss on the receiver's link (§9.7): its receiver
/// (gaps, duplicates, ACKs and NAKs out) and its busiest sender (ACKs and
/// NAKs in, packets sent again); and host 0 of a 3-host all-to-all so, 5 %
/// loss on its link and an ACK per 4 packets: it sends and receives, and
/// some of the ACKs and NAKs to it are lost. Without the loop's time
/// advances a replay finds a timeout only at a frame (SPEC §9).
fn closed_loop_captures() -> Vec<Capture> {
    use crate::sim::{run, LinkLoss, Scenario, SimConfig};
    let mut config = SimConfig::new(Scenario::Incast { senders: 4 }, 100);
    config.message_bytes = 128 << 10;
    config.mtu = 1024;
    config.jitter_ns = 3000;
    config.cc.np_min_time_between_cnps = 4;
    // Low thresholds: marks within a short capture.
    config.red.kmin = 20_000;
    config.red.kmax = 200_000;
    type Pick = fn(&[(NicConfig, Vec<GenFrame>)]) -> usize;
    let receiver: Pick = |_| 0;
    let busiest_sender: Pick = |c| (1..c.len()).max_by_key(|&h| (c[h].1.len(), h)).unwrap_or(1);
    let mut reliable = config.clone();
    reliable.cc.ack_mode = AckMode::Rocev2;
    reliable.cc.retx_timeout = 4;
    reliable.loss = LinkLoss { port: 0, rate: 0.02 };
    let mut lost_acks = reliable.clone();
    lost_acks.scenario = Scenario::AllToAll { hosts: 3 };
    lost_acks.cc.ack_coalesce_pkts = 4;
    lost_acks.loss.rate = 0.05;
    // Each run once, and the hosts it gives captures of (name, host).
    type Captures<'a> = &'a [(&'a str, Pick)];
    let runs: [(&SimConfig, CcMode, Captures); 4] = [
        (&config, CcMode::Dcqcn, &[("incast4_dcqcn_receiver", receiver)]),
        (&config, CcMode::Metaroce, &[("incast4_metaroce_sender", busiest_sender)]),
        (
            &reliable,
            CcMode::Dcqcn,
            &[("incast4_rocev2_loss_receiver", receiver), ("incast4_rocev2_loss_sender", busiest_sender)],
        ),
        (&lost_acks, CcMode::Dcqcn, &[("alltoall3_rocev2_loss_host0", receiver)]),
    ];
    runs.into_iter()
        .flat_map(|(config, mode, picks)| {
            let run = run(config, mode).expect("the closed-loop stimulus runs");
            picks.iter().map(move |(name, pick)| {
                let (nic, frames) = run.captures[pick(&run.captures)].clone();
                capture(&format!("sim_{name}.pcap"), frames, nic)
            })
        })
        .collect()
}

/// 8:1 incast at the receiver's port (host 1, 25 Gb/s): senders join every
/// 50 frames, the queue grows with the overload and drains after frame
/// 1200. Sender 2 uses IPv6, 3 a VLAN, 7 both, 4 UD (the CNP goes to its
/// DETH source QP), 5 a QP missing from the table (no CNP).
fn incast() -> (Vec<GenFrame>, NicConfig) {
    const FRAMES: u64 = 2000;
    const SPACING_NS: u64 = 100;
    let local_qp = |s: u8| 0x10 + u32::from(s);
    let remote_qp = |s: u8| 0x300 + u32::from(s);
    let flows: Vec<Flow> = (2..=9u8)
        .map(|s| {
            let mut f = Flow::rc(s, 1, local_qp(s));
            match s {
                2 => f.ipv6 = true,
                3 => f.vlan = Some(100),
                4 => f.ud_src_qp = Some(0x4004),
                7 => (f.ipv6, f.vlan) = (true, Some(200)),
                _ => {}
            }
            f
        })
        .collect();
    let mut queue = 0u64;
    let mut frames = Vec::new();
    for k in 0..FRAMES {
        let active = (1 + k / 50).min(flows.len() as u64);
        let flow = flows[(k % active) as usize];
        let data = flow.frame(k as u32, 256, 0);
        if k < 1200 {
            queue += data.len() as u64 * (active - 1) / active;
        } else {
            queue = queue.saturating_sub(data.len() as u64 / 2);
        }
        let data = flow.frame(k as u32, 256, red_mark(queue, k, 1));
        frames.push(GenFrame::at(START_NS + k * SPACING_NS, data));
    }
    let table: Vec<(u32, u32)> = [2u8, 3, 6, 7, 8, 9].iter().map(|&s| (local_qp(s), remote_qp(s))).collect();
    (frames, nic(1, &table, CcParams { line_rate_mbps: 25_000, ..CcParams::default() }))
}

/// All-to-all among hosts 1-4 at host 1's port, MetaRoCE: host 1 sends to
/// each peer, each peer sends to host 1 with CE marks that follow its own
/// congestion level, and each peer's MetaRoCE CNPs about host 1's flows
/// carry that level.
fn all_to_all() -> Capture {
    const SLOTS: u64 = 3000;
    const SLOT_NS: u64 = 200;
    let tx_qp = |h: u8| 0x20 + u32::from(h);
    let rx_qp = |h: u8| 0x30 + u32::from(h);
    let peer_qp = |h: u8, n: u32| 0x100 * u32::from(h) + n;
    let mut frames = Vec::new();
    let mut last_cnp = [0u64; 5];
    for k in 0..SLOTS {
        let peer = 2 + (k % 3) as u8;
        let t = START_NS + k * SLOT_NS;
        // Each peer's queue: a triangle wave with its own period.
        let period = 400 + 150 * u64::from(peer);
        let phase = (k / 3) % period;
        let level = if phase < period / 2 { phase } else { period - phase } * 200_000 / period;
        let tx = Flow::rc(1, peer, peer_qp(peer, 1));
        let rx = Flow { ipv6: peer == 4, ..Flow::rc(peer, 1, rx_qp(peer)) };
        frames.push(GenFrame::at(t, tx.frame(k as u32, 200, ECT0)));
        frames.push(GenFrame::at(t + SLOT_NS / 3, rx.frame(k as u32, 200, red_mark(level, k, 2))));
        if level > 20_000 && t - last_cnp[peer as usize] >= 40 * US {
            last_cnp[peer as usize] = t;
            let extent = (level.min(100_000) * 32768 / 100_000) as u16;
            frames.push(GenFrame::at(t + 2 * SLOT_NS / 3, tx.cnp(tx_qp(peer), Some(extent))));
        }
    }
    let mut table = Vec::new();
    for h in 2..=4u8 {
        table.push((tx_qp(h), peer_qp(h, 1)));
        table.push((rx_qp(h), peer_qp(h, 2)));
    }
    let cc = CcParams { mode: CcMode::Metaroce, np_min_time_between_cnps: 20, ..CcParams::default() };
    capture("all_to_all_4.pcap", frames, nic(1, &table, cc))
}

/// A sender (host 1, QP 0x11) sending 256-byte messages every µs, and CNPs
/// from its receiver at `cnp_us`; the small byte counter brings hyper
/// increase within the capture.
fn sender(duration_us: u64, qp: u32, cnps: &[(u64, Option<u16>)]) -> Vec<GenFrame> {
    let flow = Flow::rc(1, 2, 0x500 + qp);
    let mut frames = Vec::new();
    let mut next_cnp = 0;
    for us in 0..duration_us {
        let t = START_NS + us * US;
        frames.push(GenFrame::at(t, flow.frame(us as u32, 256, ECT0)));
        while next_cnp < cnps.len() && cnps[next_cnp].0 == us {
            frames.push(GenFrame::at(t + 500, flow.cnp(qp, cnps[next_cnp].1)));
            next_cnp += 1;
        }
    }
    frames
}

fn sender_nic(qp: u32, cc: CcParams) -> NicConfig {
    nic(1, &[(qp, 0x500 + qp)], CcParams { rp_byte_reset: 16_384, ..cc })
}

/// Cut, cut again, fast recovery, additive and hyper increase, a cut in
/// hyper increase, three quick cuts, and recovery to line rate.
fn dcqcn_stages() -> Capture {
    let cnps: Vec<(u64, Option<u16>)> = [10, 12, 600, 1500, 1501, 1502, 2600].iter().map(|&us| (us, None)).collect();
    capture("dcqcn_stages.pcap", sender(3000, 0x11, &cnps), sender_nic(0x11, CcParams::default()))
}

/// The options: a set rate on the first CNP, the target clamped on every
/// CNP, and a higher minimum decrease factor.
fn dcqcn_clamp_first_cnp() -> Capture {
    let cnps: Vec<(u64, Option<u16>)> = [10, 200, 210, 700].iter().map(|&us| (us, None)).collect();
    let cc = CcParams {
        rp_rate_to_set_on_first_cnp: 40_000,
        rp_clamp_tgt_rate: 1,
        rp_min_dec_fac: 75,
        ..CcParams::default()
    };
    capture("dcqcn_clamp_first_cnp.pcap", sender(1000, 0x12, &cnps), sender_nic(0x12, cc))
}

/// g = 1 (alpha falls to 0 at its first update) and large increase steps:
/// the rate is back at line rate within a few steps. Until 800 µs the byte
/// counter (every 13 frames) outpaces the timer (300 µs) and converges the
/// QP; then the sender goes quiet after two last CNPs (the first, at line
/// rate with alpha 0, only sets alpha), and one frame at 20 ms
/// lets the timer alone bring it back.
fn dcqcn_fast_alpha() -> Capture {
    let cnps: Vec<(u64, Option<u16>)> = [10, 400, 405, 790, 791].iter().map(|&us| (us, None)).collect();
    let mut frames = sender(800, 0x16, &cnps);
    let last = sender(1, 0x16, &[]).remove(0);
    frames.push(GenFrame::at(START_NS + 20_000 * US, last.data));
    let cc =
        CcParams { rp_dce_tcp_g: 0, rp_ai_rate: 20_000, rp_hai_rate: 40_000, rp_threshold: 1, ..CcParams::default() };
    let mut nic = sender_nic(0x16, cc);
    nic.cc.rp_byte_reset = 4096;
    nic.cc.rp_time_reset = 300;
    // The pacer holds packets at least 1.5 µs apart (they come 1 µs apart).
    nic.cc.pacer_min_gap_ns = 1500;
    capture("dcqcn_fast_alpha.pcap", frames, nic)
}

/// MetaRoCE CNPs of mild (5 %), half and full extent, a standard CNP (the
/// DCQCN fallback), an extent of 0 and a malformed one above 1.0. The pacer
/// starts the QP at 40 Gb/s with a 3000-byte burst allowance.
fn metaroce_sender() -> Capture {
    let cnps =
        [(10, Some(1638)), (300, Some(16384)), (600, Some(32768)), (900, None), (1200, Some(0)), (1500, Some(40000))];
    let cc =
        CcParams { mode: CcMode::Metaroce, pacer_start_rate: 40_000, pacer_burst_bytes: 3000, ..CcParams::default() };
    capture("metaroce_sender.pcap", sender(2000, 0x13, &cnps), sender_nic(0x13, cc))
}

/// Host 1 sending 1 KiB every 500 ns on QP 0x16 (priority 3) and on QP
/// 0x17 (priority 0), paced at a 10 Gb/s start rate (so a backlog waits in
/// the pacer), and the PAUSE and PFC frames its link partner (host 2)
/// sends (`SPEC.md` §7.5): priority 3 paused, refreshed, paused for 0xFFFF
/// quanta and resumed by a time of 0, both priorities paused at a tick
/// inside a slot, an 802.3x PAUSE of every priority, a PFC frame for an
/// unused priority, one with the vector's reserved byte set; and a PFC
/// frame host 1 sent itself, which pauses nothing. CNPs for QP 0x16 cut its
/// rate while it is paused (30 µs) and while it is not (90 µs).
fn pfc_sender() -> Capture {
    let flows = [Flow::rc(1, 2, 0x516), Flow::rc(1, 3, 0x517)];
    let pfc = |enable: u16, quanta: u16| {
        let mut pause_times = [0; 8];
        for (p, time) in pause_times.iter_mut().enumerate() {
            if enable & (1 << p) != 0 {
                *time = quanta;
            }
        }
        MacControlRepr::Pfc { class_enable: enable, pause_times }
    };
    // (ns after the start, sender host, frame body)
    let pauses = [
        (20_000, 2, pfc(1 << 3, 2000)),
        (25_000, 2, pfc(1 << 3, 3000)),
        (50_000, 2, pfc(1 << 3, 0xFFFF)),
        (60_000, 2, pfc(1 << 3, 0)),
        (80_030, 2, pfc(1 << 3 | 1, 100)),
        (100_000, 2, MacControlRepr::Pause { pause_time: 1000 }),
        (120_000, 2, pfc(1 << 5, 5000)),
        (140_000, 1, pfc(1 << 3, 0xFFFF)),
        (160_000, 2, pfc(0xFF01, 4000)),
    ];
    let mut frames = Vec::new();
    for i in 0..400u64 {
        for (k, flow) in flows.iter().enumerate() {
            frames.push(GenFrame::at(START_NS + i * 500 + k as u64 * 250, flow.frame(i as u32, 1024, ECT0)));
        }
    }
    for (ns, host, body) in pauses {
        frames.push(GenFrame::at(START_NS + ns + 1, mac_control_frame(host_mac(host), &body)));
    }
    for ns in [30_000, 90_000] {
        frames.push(GenFrame::at(START_NS + ns + 2, flows[0].cnp(0x16, None)));
    }
    frames.sort_by_key(|f| f.time_ns);
    let cc = CcParams { pacer_start_rate: 10_000, ..CcParams::default() };
    let mut nic = nic(1, &[(0x16, 0x516), (0x17, 0x517)], cc);
    nic.qps[0].priority = 3;
    capture("pfc_sender.pcap", frames, nic)
}

/// Host 1 over 20 seconds: four 200 µs bursts (sending on QP 0x14, receiving
/// CE-marked traffic on QP 0x15, CNPs for QP 0x14) at 0, 5, 15 and 20 s.
fn idle_gaps_20s() -> Capture {
    let tx = Flow::rc(1, 3, 0x600);
    let rx = Flow::rc(3, 1, 0x15);
    let mut frames = Vec::new();
    for (b, start_s) in [0u64, 5, 15, 20].into_iter().enumerate() {
        for i in 0..100u64 {
            let t = START_NS + start_s * 1_000_000_000 + i * 2 * US;
            let n = b as u64 * 100 + i;
            frames.push(GenFrame::at(t, tx.frame(n as u32, 256, ECT0)));
            frames.push(GenFrame::at(t + US, rx.frame(n as u32, 256, if dice(n, 3) & 1 == 0 { CE } else { ECT0 })));
            if i % 25 == 0 {
                frames.push(GenFrame::at(t + US + 500, tx.cnp(0x14, None)));
            }
        }
    }
    capture("idle_gaps_20s.pcap", frames, nic(1, &[(0x14, 0x600), (0x15, 0x601)], CcParams::default()))
}
