//! The notification point (`SPEC.md` §6.3): CE-marked packets in, CNPs out,
//! at most one per QP per `cnp_interval_ns`, as `rtl/cnp_notify.v`.

use crate::cc_params::{CcRegisters, FRACTION_ONE};
use crate::cn_event::{CnEvent, CnEventKind};
use crate::frame::{RoceRepr, UdpFrameRepr};
use crate::opcode::CNP;
use crate::wire::{
    ethertype, ip_proto, BthRepr, CnpRepr, EthernetRepr, IpRepr, Ipv4Repr, Ipv6Repr, UdpRepr, VlanRepr,
    ROCE_V2_UDP_PORT,
};

/// TTL / hop limit of CNPs (and of the responder's ACKs) sent.
pub const CNP_TTL: u8 = 64;

/// One CNP sent: the frame (no FCS) and its emit tick.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CnpSent {
    pub time: u64,
    /// The local QP whose CE-marked packet caused it.
    pub local_qp: u32,
    /// DestQP of the CNP: the remote (sending) QP.
    pub dest_qp: u32,
    /// The CE extent carried (MetaRoCE), Q1.15.
    pub extent: Option<u16>,
    pub frame: Vec<u8>,
}

/// Per-QP state of the notification point (one RAM word in the RTL).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NpEntry {
    /// The remote QP from the QP context table.
    pub remote_qp: Option<u32>,
    pub cnp_sent: bool,
    pub last_cnp: u64,
    /// Packets and CE-marked packets since the last CNP.
    pub pkts: u16,
    pub ce_pkts: u16,
}

/// The notification point for `entries.len()` local QPs (QPs 0..n).
#[derive(Debug, Clone)]
pub struct NotificationPoint {
    pub entries: Vec<NpEntry>,
}

/// The CE extent in Q1.15: the fraction of packets marked, rounded down,
/// but never to 0 when a packet was marked: extent 0 means "no mark", and
/// the reaction point ignores it (one mark in more than 32,768 packets).
pub fn ce_extent(ce_pkts: u16, pkts: u16) -> u16 {
    let extent = (u32::from(ce_pkts) * FRACTION_ONE / u32::from(pkts.max(1))) as u16;
    if ce_pkts != 0 {
        extent.max(1)
    } else {
        extent
    }
}

impl NotificationPoint {
    pub fn new(qp_count: usize) -> Self {
        NotificationPoint { entries: vec![NpEntry::default(); qp_count] }
    }

    /// Loads one QP context table entry; false when the QP is out of range.
    pub fn set_remote(&mut self, local: u32, remote: u32) -> bool {
        match self.entries.get_mut(local as usize) {
            Some(e) => {
                // Loading a context starts the QP afresh, as the RTL writes the whole word.
                *e = NpEntry { remote_qp: Some(remote & 0xFF_FFFF), ..NpEntry::default() };
                true
            }
            None => false,
        }
    }

    /// One received data packet; the CNP it triggers, if any.
    pub fn receive(&mut self, ev: &CnEvent, regs: &CcRegisters) -> Option<CnpSent> {
        debug_assert_eq!(ev.kind, CnEventKind::RxData);
        let entry = self.entries.get_mut(ev.qp as usize)?;
        // 16-bit counters, each stopping at its own maximum, so the CE
        // packet that sends a CNP always counts (ce_pkts <= pkts still holds).
        entry.pkts = entry.pkts.saturating_add(1);
        entry.ce_pkts = entry.ce_pkts.saturating_add(u16::from(ev.ce));
        let remote = ev.src_qp.or(entry.remote_qp)?;
        // t - last_cnp >= interval, compared as last_cnp <= t - interval
        // (the RTL takes t - interval a stage ahead).
        let interval_start = ev.time.checked_sub(u64::from(regs.cnp_interval_ns));
        let due = !entry.cnp_sent || interval_start.is_some_and(|start| entry.last_cnp <= start);
        if !ev.ce || !due {
            return None;
        }
        let extent = regs.metaroce.then(|| ce_extent(entry.ce_pkts, entry.pkts));
        *entry = NpEntry { remote_qp: entry.remote_qp, cnp_sent: true, last_cnp: ev.time, pkts: 0, ce_pkts: 0 };
        Some(CnpSent {
            time: ev.time,
            local_qp: ev.qp,
            dest_qp: remote,
            extent,
            frame: cnp_frame(ev, remote, extent, regs),
        })
    }
}

/// The CNP answering `ev`: addresses swapped, one 802.1Q tag when the data
/// packet had any, DSCP and priority from the registers, valid ICRC.
pub fn cnp_frame(ev: &CnEvent, dest_qp: u32, extent: Option<u16>, regs: &CcRegisters) -> Vec<u8> {
    let reserved = CnpRepr { extent, share: None }.to_bytes();
    let bth = BthRepr { opcode: CNP, pkey: 0xFFFF, becn: true, dest_qp, ..BthRepr::default() };
    reply_frame(ev, regs.cnp_dscp, regs.cnp_pcp, &bth, &reserved)
}

/// A frame answering the received data packet `ev` (a CNP, §6.3; an ACK or
/// a NAK, §6.10): the data packet's MACs, IP addresses swapped; one 802.1Q
/// tag (priority `pcp`, the data packet's outer VID) when it had any; IPv4
/// (DF, TTL 64) or IPv6 (hop limit 64) as it, with DSCP `dscp`; UDP from
/// its source port to 4791; then `bth`, the extension header bytes `ext`
/// and the ICRC.
pub fn reply_frame(ev: &CnEvent, dscp: u8, pcp: u8, bth: &BthRepr, ext: &[u8]) -> Vec<u8> {
    let ip = if ev.ipv6 {
        IpRepr::V6(Ipv6Repr {
            dscp,
            next_header: ip_proto::UDP,
            hop_limit: CNP_TTL,
            src_addr: ev.ip_dst,
            dst_addr: ev.ip_src,
            ..Ipv6Repr::default()
        })
    } else {
        IpRepr::V4(Ipv4Repr {
            dscp,
            dont_frag: true,
            ttl: CNP_TTL,
            protocol: ip_proto::UDP,
            src_addr: ev.ip_dst[12..].try_into().expect("4 bytes"),
            dst_addr: ev.ip_src[12..].try_into().expect("4 bytes"),
            ..Ipv4Repr::default()
        })
    };
    let tag = ev.vlan_id.map(|vid| VlanRepr { pcp, dei: false, vid, ethertype: ip.ethertype() });
    let first_type = if tag.is_some() { ethertype::VLAN_CTAG } else { ip.ethertype() };
    RoceRepr {
        headers: UdpFrameRepr {
            ethernet: EthernetRepr { dst_addr: ev.eth_src, src_addr: ev.eth_dst, ethertype: first_type },
            vlans: tag.as_slice(),
            ip,
            udp: UdpRepr { src_port: ev.udp_sport, dst_port: ROCE_V2_UDP_PORT, ..UdpRepr::default() },
        },
        bth: *bth,
        ext,
        payload: &[],
    }
    .emit()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc_params::CcParams;
    use crate::{parse_frame, FrameClass, ParserConfig};

    fn data(time: u64, ce: bool) -> CnEvent {
        let mut ev = CnEvent::new(time, CnEventKind::RxData, 7);
        ev.ce = ce;
        ev.eth_src = [2, 0, 0, 0, 0, 1];
        ev.eth_dst = [2, 0, 0, 0, 0, 2];
        ev.ip_src[12..].copy_from_slice(&[10, 0, 0, 1]);
        ev.ip_dst[12..].copy_from_slice(&[10, 0, 0, 2]);
        ev.udp_sport = 0xC000;
        ev
    }

    #[test]
    fn cnp_is_a_valid_roce_frame_of_74_bytes() {
        let regs = CcParams::default().registers().unwrap();
        for (ipv6, vlan, len) in [(false, None, 74), (false, Some(5), 78), (true, None, 94), (true, Some(5), 98)] {
            let mut ev = data(0, true);
            ev.ipv6 = ipv6;
            ev.vlan_id = vlan;
            let frame = cnp_frame(&ev, 0x1234, Some(9000), &regs);
            assert_eq!(frame.len(), len);
            let r = parse_frame(&frame, false, &ParserConfig::default());
            assert_eq!(r.class, FrameClass::Roce, "{r:?}");
            assert_eq!(
                (r.opcode, r.dest_qp, r.becn, r.dscp, r.icrc_ok),
                (Some(0x81), Some(0x1234), Some(1), Some(48), Some(true))
            );
        }
    }

    #[test]
    fn one_cnp_per_interval_and_extent_counts_the_window() {
        let mut regs = CcParams::default().registers().unwrap();
        regs.metaroce = true;
        let mut np = NotificationPoint::new(1024);
        np.set_remote(7, 99);
        assert_eq!(np.receive(&data(0, false), &regs), None);
        let first = np.receive(&data(10, true), &regs).unwrap();
        assert_eq!((first.dest_qp, first.extent), (99, Some(16384)));
        assert_eq!(np.receive(&data(49_999 + 10, true), &regs), None);
        assert_eq!(np.receive(&data(50_000, false), &regs), None);
        let second = np.receive(&data(50_010, true), &regs).unwrap();
        // Three packets since the first CNP, two of them CE.
        assert_eq!(second.extent, Some(21845));
    }
}
