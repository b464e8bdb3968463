//! What the congestion-notification block is told about one frame
//! (`SPEC.md` §6.1): the input transaction of `rtl/roce_cn.v`, and how a
//! parsed frame becomes one under the NIC's addressing.

use crate::cc_params::CcParams;
use crate::opcode::{self, CNP};
use crate::record::{FrameClass, ParseRecord};
use crate::wire::{read, EthernetHeader, Ipv4Header, Ipv6Header, VlanTag};

/// Which side of the block an event feeds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CnEventKind {
    /// A RoCE packet (not a CNP) received by this NIC: the notification point.
    RxData = 0,
    /// A CNP received by this NIC: the reaction point cuts.
    RxCnp = 1,
    /// A RoCE packet this NIC sent: the reaction point's byte counter.
    TxData = 2,
}

/// The MetaRoCE tag in the first two reserved bytes of a CNP: 'M', version 1.
pub const METAROCE_CNP_TAG: [u8; 2] = [0x4D, 0x01];

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
}

/// Parses "aa:bb:cc:dd:ee:ff".
pub fn parse_mac(text: &str) -> Option<[u8; 6]> {
    let mut mac = [0u8; 6];
    let mut parts = text.split(':');
    for byte in &mut mac {
        *byte = u8::from_str_radix(parts.next()?, 16).ok()?;
    }
    parts.next().is_none().then_some(mac)
}

impl NicConfig {
    /// The local MAC, checked.
    pub fn mac(&self) -> Result<Option<[u8; 6]>, String> {
        self.local_mac
            .as_deref()
            .map(|m| parse_mac(m).ok_or_else(|| format!("local_mac {m:?} is not aa:bb:cc:dd:ee:ff")))
            .transpose()
    }

    /// The local QP whose remote end is `remote` (the send path knows its
    /// QP; a capture shows only the remote one).
    pub fn local_qp_of(&self, remote: u32) -> Option<u32> {
        self.qps.iter().find(|c| c.remote == remote).map(|c| c.local)
    }
}

/// Where the transport (UDP) header of a parsed RoCE frame starts.
fn transport_offset(frame: &[u8], record: &ParseRecord) -> Option<usize> {
    let l3 = EthernetHeader::LEN + VlanTag::LEN * usize::from(record.vlan_count?);
    Some(l3 + if record.ip_version == Some(6) { Ipv6Header::LEN } else { usize::from(*frame.get(l3)? & 0x0F) * 4 })
}

/// The MetaRoCE CE extent a CNP carries: reserved bytes 2-3 (Q1.15,
/// big-endian) when bytes 0-1 hold [`METAROCE_CNP_TAG`].
pub fn cnp_extent(frame: &[u8], record: &ParseRecord) -> Option<u16> {
    if record.opcode != Some(CNP) {
        return None;
    }
    let reserved = transport_offset(frame, record)? + 8 + 12;
    let bytes = frame.get(reserved..reserved + 4)?;
    (bytes[..2] == METAROCE_CNP_TAG).then(|| u16::from_be_bytes([bytes[2], bytes[3]]))
}

/// The event a frame gives, if any: only frames of class `roce` count.
/// `local_mac` decides direction: frames to it are received, from it sent,
/// others ignored; without it every frame is received.
pub fn classify(
    frame: &[u8],
    record: &ParseRecord,
    time: u64,
    local_mac: Option<[u8; 6]>,
    nic: &NicConfig,
) -> Option<CnEvent> {
    if record.class != FrameClass::Roce {
        return None;
    }
    let eth: EthernetHeader = read(frame)?;
    let received = local_mac.is_none_or(|mac| eth.dst == mac);
    let sent = local_mac.is_some_and(|mac| eth.src == mac);
    let opcode = record.opcode?;
    let dest_qp = record.dest_qp?;
    let l3 = EthernetHeader::LEN + VlanTag::LEN * usize::from(record.vlan_count?);
    let l4 = transport_offset(frame, record)?;
    if received && opcode == CNP {
        frame.get(l4 + 8 + 12..l4 + 8 + 12 + opcode::CNP_RESERVED_LEN)?;
        let mut event = CnEvent::new(time, CnEventKind::RxCnp, dest_qp);
        event.extent = cnp_extent(frame, record);
        return Some(event);
    }
    if opcode == CNP {
        return None;
    }
    if sent && !received {
        let mut event = CnEvent::new(time, CnEventKind::TxData, nic.local_qp_of(dest_qp)?);
        event.len = record.frame_len;
        return Some(event);
    }
    if !received {
        return None;
    }
    let mut event = CnEvent::new(time, CnEventKind::RxData, dest_qp);
    event.ce = record.ecn == Some(3);
    event.len = record.frame_len;
    event.vlan_id = record.vlan_id;
    event.eth_dst = eth.dst;
    event.eth_src = eth.src;
    event.udp_sport = record.udp_sport?;
    event.src_qp = record.deth_src_qp;
    if record.ip_version == Some(6) {
        let ip: Ipv6Header = read(&frame[l3..])?;
        event.ipv6 = true;
        event.ip_src = ip.src;
        event.ip_dst = ip.dst;
    } else {
        let ip: Ipv4Header = read(&frame[l3..])?;
        event.ip_src[12..].copy_from_slice(&ip.src);
        event.ip_dst[12..].copy_from_slice(&ip.dst);
    }
    Some(event)
}
