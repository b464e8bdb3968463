//! Whole frames from the header Reprs of [`crate::wire`]: the one layout of
//! Ethernet, VLAN tags, IP, UDP, BTH, extension headers, payload, pad and
//! ICRC that every frame builder uses (CNPs, the regression stimuli, the
//! simulator's packets).

use crate::icrc::{icrc, IcrcIp};
use crate::wire::{
    ethertype, BthRepr, EthernetFrame, EthernetRepr, IpRepr, MacControl, MacControlRepr, UdpPacket, UdpRepr, VlanRepr,
    VlanTag,
};

/// Ethernet minimum frame length without the FCS; shorter frames are padded.
pub const MIN_FRAME_LEN: usize = 60;
/// Bytes of the ICRC.
pub const ICRC_LEN: usize = 4;

/// The headers of a UDP frame up to its payload. The EtherType chain is
/// the caller's: `ethernet.ethertype` and each tag's `ethertype` name what
/// follows them. `emit` fills the IP and UDP lengths.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UdpFrameRepr<'a> {
    pub ethernet: EthernetRepr,
    /// Outermost first.
    pub vlans: &'a [VlanRepr],
    pub ip: IpRepr<'a>,
    pub udp: UdpRepr,
}

impl UdpFrameRepr<'_> {
    /// Offset of the IP header.
    pub fn ip_offset(&self) -> usize {
        EthernetRepr::LEN + VlanRepr::LEN * self.vlans.len()
    }

    /// Offset of the UDP payload.
    pub fn header_len(&self) -> usize {
        self.ip_offset() + self.ip.header_len() + UdpRepr::LEN
    }

    /// Which IP header the ICRC starts with.
    pub fn icrc_ip(&self) -> IcrcIp {
        match self.ip {
            IpRepr::V4(_) => IcrcIp::V4,
            IpRepr::V6(_) => IcrcIp::V6,
        }
    }

    /// The headers for a UDP payload of `payload_len` bytes, with room
    /// reserved for it.
    pub fn emit(&self, payload_len: usize) -> Vec<u8> {
        let header_len = self.header_len();
        let mut frame = Vec::with_capacity(header_len + payload_len + ICRC_LEN);
        frame.resize(header_len, 0);
        emit_ethernet(&self.ethernet, self.vlans, &mut frame);
        let ip_at = self.ip_offset();
        let udp_at = ip_at + self.ip.header_len();
        let mut ip = self.ip;
        ip.set_payload_len(UdpRepr::LEN + payload_len);
        ip.emit(&mut frame[ip_at..udp_at]);
        let udp = UdpRepr { length: (UdpRepr::LEN + payload_len) as u16, ..self.udp };
        udp.emit(&mut UdpPacket::new_unchecked(&mut frame[udp_at..]));
        frame
    }

    /// Appends the ICRC over everything from the IP header on.
    pub fn append_icrc(&self, frame: &mut Vec<u8>) {
        let value = icrc(&frame[self.ip_offset()..], self.icrc_ip(), self.ip.header_len());
        frame.extend(value.to_le_bytes());
    }
}

/// A whole RoCEv2 frame: the headers, the BTH, the extension headers' bytes
/// and the payload; `emit` adds the pad the BTH's PadCnt asks for, the
/// ICRC, and pads the frame to the Ethernet minimum.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RoceRepr<'a> {
    pub headers: UdpFrameRepr<'a>,
    pub bth: BthRepr,
    pub ext: &'a [u8],
    pub payload: &'a [u8],
}

impl RoceRepr<'_> {
    pub fn emit(&self) -> Vec<u8> {
        let pad = usize::from(self.bth.pad_cnt);
        let transport_len = BthRepr::LEN + self.ext.len() + self.payload.len() + pad;
        let mut frame = self.headers.emit(transport_len + ICRC_LEN);
        frame.extend(self.bth.to_bytes());
        frame.extend_from_slice(self.ext);
        frame.extend_from_slice(self.payload);
        frame.resize(frame.len() + pad, 0);
        self.headers.append_icrc(&mut frame);
        pad_to_minimum(&mut frame);
        frame
    }
}

/// The destination of PAUSE and PFC frames: the MAC Control multicast
/// address no bridge forwards (IEEE 802.3 Annex 31B.3.1).
pub const MAC_CONTROL_DST: [u8; 6] = [0x01, 0x80, 0xC2, 0x00, 0x00, 0x01];

/// A MAC Control frame: Ethernet, VLAN tags (802.1Qbb sends none), the
/// opcode and its parameters, padding. The EtherType chain is the
/// caller's, as in [`UdpFrameRepr`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MacControlFrameRepr<'a> {
    pub ethernet: EthernetRepr,
    /// Outermost first.
    pub vlans: &'a [VlanRepr],
    pub body: MacControlRepr,
}

impl MacControlFrameRepr<'_> {
    /// The frame, padded to the minimum frame.
    pub fn emit(&self) -> Vec<u8> {
        let body_at = EthernetRepr::LEN + VlanRepr::LEN * self.vlans.len();
        let mut frame = vec![0u8; body_at + self.body.buffer_len()];
        emit_ethernet(&self.ethernet, self.vlans, &mut frame);
        self.body.emit(&mut MacControl::new_unchecked(&mut frame[body_at..]));
        pad_to_minimum(&mut frame);
        frame
    }
}

/// An untagged PAUSE or PFC frame from `src` to [`MAC_CONTROL_DST`].
pub fn mac_control_frame(src: [u8; 6], body: &MacControlRepr) -> Vec<u8> {
    let ethernet = EthernetRepr { dst_addr: MAC_CONTROL_DST, src_addr: src, ethertype: ethertype::MAC_CONTROL };
    MacControlFrameRepr { ethernet, vlans: &[], body: *body }.emit()
}

/// The Ethernet header and the VLAN tags after it, at the start of `frame`.
fn emit_ethernet(ethernet: &EthernetRepr, vlans: &[VlanRepr], frame: &mut [u8]) {
    ethernet.emit(&mut EthernetFrame::new_unchecked(&mut frame[..]));
    for (i, tag) in vlans.iter().enumerate() {
        let at = EthernetRepr::LEN + VlanRepr::LEN * i;
        tag.emit(&mut VlanTag::new_unchecked(&mut frame[at..]));
    }
}

/// Pads a frame with zeros to [`MIN_FRAME_LEN`].
pub fn pad_to_minimum(frame: &mut Vec<u8>) {
    if frame.len() < MIN_FRAME_LEN {
        frame.resize(MIN_FRAME_LEN, 0);
    }
}
