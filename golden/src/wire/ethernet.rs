//! Ethernet II and 802.1Q / 802.1ad VLAN tags.

use super::field::{header_view, plain_header};

/// EtherTypes and TPIDs the parser recognises.
pub mod ethertype {
    pub const IPV4: u16 = 0x0800;
    pub const IPV6: u16 = 0x86DD;
    pub const ARP: u16 = 0x0806;
    /// RoCEv1 (IB GRH directly over Ethernet): not RoCEv2.
    pub const ROCE_V1: u16 = 0x8915;
    pub const VLAN_CTAG: u16 = 0x8100;
    pub const VLAN_STAG: u16 = 0x88A8;
    /// MAC Control: PAUSE and PFC frames (IEEE 802.3 clause 31).
    pub const MAC_CONTROL: u16 = 0x8808;

    /// True for the two tag protocol identifiers the parser strips.
    pub fn is_vlan_tpid(ethertype: u16) -> bool {
        ethertype == VLAN_CTAG || ethertype == VLAN_STAG
    }
}

plain_header!(
    /// The Ethernet II header: addresses and the EtherType (a TPID when a
    /// VLAN tag follows).
    EthernetFrame / EthernetRepr, 14, {
        dst_addr, set_dst_addr: [u8; 6] = bytes_at, set_bytes @ 0;
        src_addr, set_src_addr: [u8; 6] = bytes_at, set_bytes @ 6;
        ethertype, set_ethertype: u16 = u16_at, set_u16 @ 12;
    }
);

header_view!(
    /// One VLAN tag as it follows its TPID: the TCI, then the EtherType of
    /// what comes next (another TPID, or the network layer).
    VlanTag, 4, {
        /// PCP (15:13), DEI (12), VID (11:0).
        tci, set_tci: u16 = u16_at, set_u16 @ 0;
        ethertype, set_ethertype: u16 = u16_at, set_u16 @ 2;
    }
);

impl<T: AsRef<[u8]>> VlanTag<T> {
    pub fn pcp(&self) -> u8 {
        (self.tci() >> 13) as u8
    }
    pub fn dei(&self) -> bool {
        self.tci() & 0x1000 != 0
    }
    pub fn vid(&self) -> u16 {
        self.tci() & 0x0FFF
    }
}

/// A VLAN tag as values; `ethertype` names what follows the tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct VlanRepr {
    pub pcp: u8,
    pub dei: bool,
    pub vid: u16,
    pub ethertype: u16,
}

impl VlanRepr {
    pub const LEN: usize = 4;

    pub fn parse<T: AsRef<[u8]>>(tag: &VlanTag<T>) -> Self {
        VlanRepr { pcp: tag.pcp(), dei: tag.dei(), vid: tag.vid(), ethertype: tag.ethertype() }
    }

    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, tag: &mut VlanTag<T>) {
        tag.set_tci(u16::from(self.pcp & 7) << 13 | u16::from(self.dei) << 12 | (self.vid & 0x0FFF));
        tag.set_ethertype(self.ethertype);
    }
}
