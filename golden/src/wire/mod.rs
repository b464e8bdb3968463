//! Every header the parser reads, smoltcp style: a typed view over the
//! bytes and a `Repr` that both parses and emits.
//!
//! A view (`EthernetFrame<T>`, `Ipv4Packet<T>`, `Bth<T>`, ...) wraps any
//! `T: AsRef<[u8]>` and reads each field in place, in network byte order,
//! when asked; `new_checked` makes sure the buffer holds the fixed header,
//! so the accessors cannot fail. Over a mutable buffer it has setters too.
//! A `Repr` is the header's meaning as plain values: `parse` reads it from
//! a view, `emit` writes it into one. The parser reads views only, so no
//! header is copied out of the frame; every frame builder (CNPs, the
//! regression stimuli, the simulator's packets) emits Reprs, mostly through
//! [`crate::frame`]. Sub-byte fields are accessor methods that slice the
//! byte, as the RTL does.

mod ethernet;
mod field;
mod ib;
mod ip;
mod mac_control;
mod udp;

pub use ethernet::{ethertype, EthernetFrame, EthernetRepr, VlanRepr, VlanTag};
pub use field::Error;
pub use ib::{
    Aeth, AethRepr, AtomicAckEth, AtomicAckEthRepr, AtomicEth, AtomicEthRepr, Bth, BthRepr, CnpPayload, CnpRepr, Deth,
    DethRepr, FairShare, Ieth, IethRepr, ImmDt, ImmDtRepr, Reth, RethRepr, SackExt, SackRepr, BTH_FECN_BECN_OFFSET,
};
pub use ip::{ip_proto, ones_complement_sum, IpRepr, Ipv4Packet, Ipv4Repr, Ipv6Packet, Ipv6Repr};
pub use mac_control::{mac_control_opcode, MacControl, MacControlRepr, PauseFrame, PfcFrame, PFC_PRIORITIES};
pub use udp::{UdpPacket, UdpRepr, ROCE_V2_UDP_PORT, UDP_CHECKSUM_OFFSET};

#[cfg(test)]
mod tests;
