//! What the congestion-notification block is told about one frame
//! (`SPEC.md` §6.1): the input transaction of `rtl/roce_cn.v`, and how a
//! parsed frame becomes one under the NIC's addressing.

use crate::cc_params::CcParams;
use crate::opcode::{message_end, rc_request, CNP, RC_ACK};
use crate::record::{FrameClass, MacAddr, ParseRecord};
use crate::wire::SackRepr;
use std::net::IpAddr;

/// Which side of the block an event feeds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CnEventKind {
    /// A RoCE packet (not a CNP) received by this NIC: the notification point.
    RxData = 0,
    /// A CNP received by this NIC: the reaction point cuts.
    RxCnp = 1,
    /// A RoCE packet this NIC sent: the reaction point's byte counter.
    TxData = 2,
    /// Time alone, with no frame: the driver moved the NIC's time on
    /// (the top's `s_adv`), the requester's clock for its retransmit
    /// timers (`SPEC.md` §6.11). No other part takes it.
    Time = 3,
}

/// The MetaRoCE tag in the first two reserved bytes of a CNP: 'M', version 1.
pub const METAROCE_CNP_TAG: [u8; 2] = [0x4D, 0x01];
/// Version 2's: the fair share follows the extent (`SPEC.md` §6.9).
pub const METAROCE_V2_CNP_TAG: [u8; 2] = [0x4D, 0x02];

/// One input transaction. Addresses are as in the frame; IPv4 addresses sit
/// in the last 4 bytes of the 16 (the rest zero).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CnEvent {
    /// Tick (ns, `SPEC.md` §2) of the frame.
    pub time: u64,
    pub kind: CnEventKind,
    /// The local QP: BTH DestQP on receive, the sending QP on transmit.
    pub qp: u32,
    /// ECN = CE (RxData).
    pub ce: bool,
    /// Frame bytes (TxData: what the byte counter counts).
    pub len: u32,
    pub ipv6: bool,
    /// Outer VLAN ID when the frame was tagged.
    pub vlan_id: Option<u16>,
    pub eth_dst: [u8; 6],
    pub eth_src: [u8; 6],
    pub ip_src: [u8; 16],
    pub ip_dst: [u8; 16],
    pub udp_sport: u16,
    /// DETH source QP (UD), which names the remote QP without the table.
    pub src_qp: Option<u32>,
    /// The MetaRoCE CE extent (Q1.15) of a tagged CNP (RxCnp).
    pub extent: Option<u16>,
    /// BTH PSN (RxData, TxData).
    pub psn: u32,
    /// BTH AckReq (RxData).
    pub ack_req: bool,
    /// An RC SEND or RDMA WRITE request: received, the responder's input
    /// (`SPEC.md` §6.10); sent, the requester's (§6.11).
    pub rc_req: bool,
    /// The last or only packet of a message (RxData, `rc_req`).
    pub msg_end: bool,
    /// The AETH syndrome of a received RC ACKNOWLEDGE (opcode 0x11,
    /// RxData): the requester's input (`SPEC.md` §6.11).
    pub syndrome: Option<u8>,
    /// The selective-ACK extension of that ACK, when it carries one
    /// (`SPEC.md` §6.10): the requester acts on it in MetaRoCE mode.
    pub sack: Option<SackRepr>,
}

impl CnEvent {
    /// An event with every address field zero.
    pub fn new(time: u64, kind: CnEventKind, qp: u32) -> Self {
        CnEvent {
            time,
            kind,
            qp,
            ce: false,
            len: 0,
            ipv6: false,
            vlan_id: None,
            eth_dst: [0; 6],
            eth_src: [0; 6],
            ip_src: [0; 16],
            ip_dst: [0; 16],
            udp_sport: 0,
            src_qp: None,
            extent: None,
            psn: 0,
            ack_req: false,
            rc_req: false,
            msg_end: false,
            syndrome: None,
            sack: None,
        }
    }
}

/// One NIC's configuration (`SPEC.md` §6.1): how it knows its own frames
/// and its QPs, and its congestion-control parameters. The JSON form is
/// the `*.nic.json` file beside a capture.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NicConfig {
    /// This NIC's MAC as "aa:bb:cc:dd:ee:ff". Without it every RoCE frame
    /// counts as received (a capture taken at the receiver's port).
    pub local_mac: Option<String>,
    /// The QP context table: each local QP and the remote QP it talks to.
    pub qps: Vec<QpContext>,
    /// Congestion-control parameters (mlx5 names; defaults for those absent).
    pub cc: CcParams,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QpContext {
    pub local: u32,
    pub remote: u32,
    /// The priority (802.1Q PCP, 0-7) the QP's packets leave on, which a
    /// PFC frame pauses (`SPEC.md` §7.5); 0, the default priority, if
    /// absent.
    #[serde(default, skip_serializing_if = "is_default_priority")]
    pub priority: u8,
    /// The PSN the responder expects first (ibverbs' `rq_psn` at RTR,
    /// `SPEC.md` §6.10); absent, it takes the first request's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rq_psn: Option<u32>,
}

fn is_default_priority(priority: &u8) -> bool {
    *priority == 0
}

impl NicConfig {
    /// The local MAC, checked.
    pub fn mac(&self) -> Result<Option<[u8; 6]>, String> {
        self.local_mac.as_deref().map(|m| m.parse::<MacAddr>().map(|mac| mac.0)).transpose()
    }

    /// The local QP whose remote end is `remote` (the send path knows its
    /// QP; a capture shows only the remote one).
    pub fn local_qp_of(&self, remote: u32) -> Option<u32> {
        self.qps.iter().find(|c| c.remote == remote).map(|c| c.local)
    }
}

/// The address bytes of an IP address in an event (IPv4 in the last 4).
fn ip_bytes(ip: IpAddr) -> [u8; 16] {
    match ip {
        IpAddr::V4(v4) => {
            let mut bytes = [0u8; 16];
            bytes[12..].copy_from_slice(&v4.octets());
            bytes
        }
        IpAddr::V6(v6) => v6.octets(),
    }
}

/// The event a parsed frame gives, if any: only frames of class `roce`
/// count. `local_mac` decides direction: frames to it are received, from
/// it sent, others ignored; without it every frame is received. Everything
/// comes from the parse record, as the pipeline top takes it from the
/// parser's output.
pub fn classify(record: &ParseRecord, time: u64, local_mac: Option<[u8; 6]>, nic: &NicConfig) -> Option<CnEvent> {
    if record.class != FrameClass::Roce {
        return None;
    }
    let (eth_dst, eth_src) = (record.eth_dst?.0, record.eth_src?.0);
    let received = local_mac.is_none_or(|mac| eth_dst == mac);
    let sent = local_mac.is_some_and(|mac| eth_src == mac);
    let opcode = record.opcode?;
    let dest_qp = record.dest_qp?;
    if opcode == CNP {
        if !received {
            return None;
        }
        let mut event = CnEvent::new(time, CnEventKind::RxCnp, dest_qp);
        event.extent = record.cnp_extent;
        return Some(event);
    }
    if sent && !received {
        let mut event = CnEvent::new(time, CnEventKind::TxData, nic.local_qp_of(dest_qp)?);
        event.len = record.frame_len;
        // The requester's input (SPEC §6.11): which PSNs went out.
        event.psn = record.psn?;
        event.rc_req = rc_request(opcode);
        return Some(event);
    }
    if !received {
        return None;
    }
    let mut event = CnEvent::new(time, CnEventKind::RxData, dest_qp);
    event.ce = record.ecn == Some(3);
    event.len = record.frame_len;
    event.ipv6 = matches!(record.ip_src, Some(IpAddr::V6(_)));
    event.vlan_id = record.vlan_id;
    event.eth_dst = eth_dst;
    event.eth_src = eth_src;
    event.ip_src = ip_bytes(record.ip_src?);
    event.ip_dst = ip_bytes(record.ip_dst?);
    event.udp_sport = record.udp_sport?;
    event.src_qp = record.deth_src_qp;
    event.psn = record.psn?;
    event.ack_req = record.ack_req == Some(1);
    event.rc_req = rc_request(opcode);
    event.msg_end = event.rc_req && message_end(opcode);
    // An ACK or NAK for one of our requests (SPEC §6.11).
    event.syndrome = record.aeth_syndrome.filter(|_| opcode == RC_ACK);
    event.sack = record.sack.filter(|_| event.syndrome.is_some());
    Some(event)
}
