//! The header parser: one [`ParseRecord`] per frame (`SPEC.md` "Parser").
//!
//! Layers are checked outermost first and the first failing check decides
//! the error class, exactly as `rtl/roce_parser.v` classifies in its last
//! stage. Lengths are compared the way the RTL compares them: against the
//! bytes the frame holds from the start of the layer.

use std::net::IpAddr;

use crate::icrc::{icrc, IcrcIp};
use crate::opcode::{self, ExtHeaders};
use crate::record::{FrameClass, MacAddr, ParseError, ParseRecord, FRAME_LEN_MAX};
use crate::wire::{
    self, ethertype, ip_proto, Aeth, AtomicAckEth, AtomicEth, Bth, CnpPayload, Deth, EthernetFrame, Ieth, ImmDt,
    Ipv4Packet, Ipv6Packet, MacControl, MacControlRepr, Reth, SackExt, SackRepr, UdpPacket, VlanTag,
};

/// Run-time parameters of the parser (RTL parameters of the same meaning).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParserConfig {
    /// UDP destination port that marks RoCEv2 (RTL `ROCE_UDP_PORT`).
    pub roce_udp_port: u16,
}

impl Default for ParserConfig {
    fn default() -> Self {
        ParserConfig { roce_udp_port: wire::ROCE_V2_UDP_PORT }
    }
}

/// Why parsing stopped before the ICRC.
enum Stop {
    NonRoce,
    /// A PAUSE or PFC frame, its fields recorded.
    FlowControl,
    Error(ParseError),
}
use Stop::NonRoce;

impl From<ParseError> for Stop {
    fn from(e: ParseError) -> Self {
        Stop::Error(e)
    }
}

/// The IP payload the UDP layer sees, and what the ICRC needs of the IP header.
struct IpPayload<'a> {
    /// From the first byte of the IP header to the end of the IP length.
    packet: &'a [u8],
    header_len: usize,
    version: IcrcIp,
}

/// Parses one frame. `mac_error` is the MAC's bad-frame flag (`tuser`).
pub fn parse_frame(frame: &[u8], mac_error: bool, config: &ParserConfig) -> ParseRecord {
    let mut record =
        ParseRecord { frame_len: (frame.len() as u64).min(FRAME_LEN_MAX as u64) as u32, ..ParseRecord::default() };
    let outcome =
        if mac_error { Err(Stop::Error(ParseError::MacError)) } else { parse_layers(frame, config, &mut record) };
    match outcome {
        Ok(()) => record.class = FrameClass::Roce,
        Err(NonRoce) => record.class = FrameClass::NonRoce,
        Err(Stop::FlowControl) => record.class = FrameClass::FlowControl,
        Err(Stop::Error(e)) => {
            record.class = FrameClass::Error;
            record.error = Some(e);
        }
    }
    record
}

fn parse_layers(frame: &[u8], config: &ParserConfig, rec: &mut ParseRecord) -> Result<(), Stop> {
    let after_tags = parse_ethernet(frame, rec)?;
    let ip = match rec.eth_type {
        Some(ethertype::IPV4) => parse_ipv4(after_tags, rec)?,
        Some(ethertype::IPV6) => parse_ipv6(after_tags, rec)?,
        Some(ethertype::MAC_CONTROL) => return parse_mac_control(after_tags, rec),
        _ => return Err(NonRoce),
    };
    parse_roce(&ip, config, rec)
}

/// Ethernet II with up to two VLAN tags; returns the bytes after them.
fn parse_ethernet<'a>(frame: &'a [u8], rec: &mut ParseRecord) -> Result<&'a [u8], Stop> {
    let eth = EthernetFrame::new_checked(frame).map_err(|_| ParseError::TruncatedEth)?;
    let mut next_type = eth.ethertype();
    let mut rest = &frame[EthernetFrame::<&[u8]>::LEN..];
    let mut outer_tag = None;
    let mut tags = 0u8;
    while tags < 2 && ethertype::is_vlan_tpid(next_type) {
        let tag = VlanTag::new_checked(rest).map_err(|_| ParseError::TruncatedEth)?;
        outer_tag.get_or_insert((tag.pcp(), tag.vid()));
        next_type = tag.ethertype();
        rest = &rest[VlanTag::<&[u8]>::LEN..];
        tags += 1;
    }
    rec.eth_type = Some(next_type);
    rec.vlan_count = Some(tags);
    rec.vlan_pcp = outer_tag.map(|(pcp, _)| pcp);
    rec.vlan_id = outer_tag.map(|(_, vid)| vid);
    rec.eth_dst = Some(MacAddr(eth.dst_addr()));
    rec.eth_src = Some(MacAddr(eth.src_addr()));
    Ok(rest)
}

/// A MAC Control frame after its EtherType: short when the frame ends
/// before the opcode's parameters (`SPEC.md` §3.3), then the opcode.
fn parse_mac_control(body: &[u8], rec: &mut ParseRecord) -> Result<(), Stop> {
    let truncated = |_| ParseError::TruncatedMacControl;
    let repr = MacControlRepr::parse(&MacControl::new_checked(body).map_err(truncated)?).map_err(truncated)?;
    rec.mac_control_opcode = Some(repr.opcode());
    match repr {
        MacControlRepr::Pause { pause_time } => rec.pause_time = Some(pause_time),
        MacControlRepr::Pfc { class_enable, pause_times } => {
            (rec.pfc_enable, rec.pfc_quanta) = (Some(class_enable), Some(pause_times));
        }
        MacControlRepr::Other { .. } => return Err(ParseError::UnknownMacControlOpcode.into()),
    }
    Err(Stop::FlowControl)
}

fn parse_ipv4<'a>(ip: &'a [u8], rec: &mut ParseRecord) -> Result<IpPayload<'a>, Stop> {
    let h = Ipv4Packet::new_checked(ip).map_err(|_| ParseError::TruncatedIp)?;
    fill_ip(rec, [h.version(), h.dscp(), h.ecn()], h.src_addr().into(), h.dst_addr().into());
    if h.version() != 4 {
        return Err(ParseError::BadIpVersion.into());
    }
    if h.ihl() < 5 {
        return Err(ParseError::BadIhl.into());
    }
    let header_len = h.header_len();
    if ip.len() < header_len {
        return Err(ParseError::TruncatedIp.into());
    }
    if !h.verify_checksum() {
        return Err(ParseError::BadIpv4Checksum.into());
    }
    let total_len = usize::from(h.total_len());
    if total_len < header_len {
        return Err(ParseError::BadIpLength.into());
    }
    let packet = ip.get(..total_len).ok_or(ParseError::IpLengthExceedsFrame)?;
    if h.is_fragment() {
        return Err(ParseError::IpFragment.into());
    }
    if h.protocol() != ip_proto::UDP {
        return Err(NonRoce);
    }
    Ok(IpPayload { packet, header_len, version: IcrcIp::V4 })
}

fn parse_ipv6<'a>(ip: &'a [u8], rec: &mut ParseRecord) -> Result<IpPayload<'a>, Stop> {
    let h = Ipv6Packet::new_checked(ip).map_err(|_| ParseError::TruncatedIp)?;
    fill_ip(rec, [h.version(), h.dscp(), h.ecn()], h.src_addr().into(), h.dst_addr().into());
    if h.version() != 6 {
        return Err(ParseError::BadIpVersion.into());
    }
    let header_len = Ipv6Packet::<&[u8]>::LEN;
    let packet = ip.get(..header_len + usize::from(h.payload_len())).ok_or(ParseError::IpLengthExceedsFrame)?;
    if ip_proto::is_ipv6_extension(h.next_header()) {
        return Err(ParseError::Ipv6ExtHeader.into());
    }
    if h.next_header() != ip_proto::UDP {
        return Err(NonRoce);
    }
    Ok(IpPayload { packet, header_len, version: IcrcIp::V6 })
}

/// The IP fields of the record, filled before any IP check (`SPEC.md` 3.2).
fn fill_ip(rec: &mut ParseRecord, [version, dscp, ecn]: [u8; 3], src: IpAddr, dst: IpAddr) {
    (rec.ip_version, rec.dscp, rec.ecn) = (Some(version), Some(dscp), Some(ecn));
    (rec.ip_src, rec.ip_dst) = (Some(src), Some(dst));
}

/// UDP, BTH, extension headers and ICRC.
fn parse_roce(ip: &IpPayload, config: &ParserConfig, rec: &mut ParseRecord) -> Result<(), Stop> {
    let datagram = &ip.packet[ip.header_len..];
    let udp = UdpPacket::new_checked(datagram).map_err(|_| ParseError::TruncatedUdp)?;
    rec.udp_sport = Some(udp.src_port());
    rec.udp_dport = Some(udp.dst_port());
    if udp.dst_port() != config.roce_udp_port {
        return Err(NonRoce);
    }
    if usize::from(udp.length()) != datagram.len() {
        return Err(ParseError::UdpLengthMismatch.into());
    }

    let transport = &datagram[UdpPacket::<&[u8]>::LEN..];
    let bth = Bth::new_checked(transport).map_err(|_| ParseError::TruncatedBth)?;
    fill_bth(&bth, rec);
    if bth.tver() != 0 {
        return Err(ParseError::BadTver.into());
    }
    let ext = opcode::ext_headers(bth.opcode()).ok_or(ParseError::ReservedOpcode)?;
    let after_bth = &transport[Bth::<&[u8]>::LEN..];
    let ext_len = ext.len();
    let ext_bytes = after_bth.get(..ext_len).ok_or(ParseError::TruncatedExt)?;
    fill_ext(&ext, ext_bytes, rec);

    let trailer = usize::from(bth.pad_cnt()) + 4;
    let body_len = after_bth.len() - ext_len;
    if body_len < trailer {
        return Err(ParseError::TooShortForIcrc.into());
    }
    rec.payload_len = Some((body_len - trailer) as u16);
    if bth.opcode() == opcode::RC_ACK && body_len - trailer >= SackRepr::LEN {
        // An ACK's payload that starts with the tag and version is a
        // selective ACK's extension (§6.10), whatever the ICRC says, as the
        // other fields.
        rec.sack = SackRepr::parse(&SackExt::new_unchecked(&after_bth[ext_len..]));
    }

    let (covered, wire_icrc) = ip.packet.split_at(ip.packet.len() - 4);
    let wire_icrc: [u8; 4] = wire_icrc.try_into().expect("split at len - 4");
    let computed = icrc(covered, ip.version, ip.header_len);
    let ok = computed.to_le_bytes() == wire_icrc;
    rec.icrc = Some(u32::from_be_bytes(wire_icrc));
    rec.icrc_ok = Some(ok);
    if !ok {
        return Err(ParseError::BadIcrc.into());
    }
    Ok(())
}

fn fill_bth(bth: &Bth<&[u8]>, rec: &mut ParseRecord) {
    rec.opcode = Some(bth.opcode());
    rec.se = Some(u8::from(bth.se()));
    rec.mig_req = Some(u8::from(bth.mig_req()));
    rec.pad_cnt = Some(bth.pad_cnt());
    rec.tver = Some(bth.tver());
    rec.pkey = Some(bth.pkey());
    rec.fecn = Some(u8::from(bth.fecn()));
    rec.becn = Some(u8::from(bth.becn()));
    rec.dest_qp = Some(bth.dest_qp());
    rec.ack_req = Some(u8::from(bth.ack_req()));
    rec.psn = Some(bth.psn());
}

/// Fills the fields of each extension header `ext` says is present; `bytes`
/// holds exactly `ext.len()` bytes, so every view is in bounds.
fn fill_ext(ext: &ExtHeaders, bytes: &[u8], rec: &mut ParseRecord) {
    let at = ext.offsets();
    let header = |offset: usize| &bytes[offset..];
    if ext.reth {
        let h = Reth::new_unchecked(header(at.reth));
        (rec.reth_va, rec.reth_rkey, rec.reth_dma_len) = (Some(h.va()), Some(h.rkey()), Some(h.dma_len()));
    }
    if ext.atomic {
        let h = AtomicEth::new_unchecked(header(at.atomic));
        rec.atomic_va = Some(h.va());
        rec.atomic_rkey = Some(h.rkey());
        rec.atomic_swap_add = Some(h.swap_add());
        rec.atomic_compare = Some(h.compare());
    }
    if ext.aeth {
        let h = Aeth::new_unchecked(header(at.aeth));
        (rec.aeth_syndrome, rec.aeth_msn) = (Some(h.syndrome()), Some(h.msn()));
    }
    if ext.atomic_ack {
        rec.atomic_ack_orig = Some(AtomicAckEth::new_unchecked(header(at.atomic_ack)).orig());
    }
    if ext.deth {
        let h = Deth::new_unchecked(header(at.deth));
        (rec.deth_qkey, rec.deth_src_qp) = (Some(h.qkey()), Some(h.src_qp()));
    }
    if ext.imm {
        rec.imm_data = Some(ImmDt::new_unchecked(header(at.imm)).data());
    }
    if ext.ieth {
        rec.ieth_rkey = Some(Ieth::new_unchecked(header(at.ieth)).rkey());
    }
    if ext.cnp {
        // A CNP carries nothing but its reserved bytes.
        let cnp = CnpPayload::new_unchecked(bytes);
        rec.cnp_extent = cnp.metaroce_extent();
        rec.cnp_share = cnp.fair_share();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The single frame of a one-packet classic pcap (24-byte file header,
    /// 16-byte record header).
    fn only_frame(pcap: &[u8]) -> &[u8] {
        &pcap[40..]
    }

    #[test]
    fn external_cnp_from_connectx4lx() {
        let frame = only_frame(include_bytes!("../../pcaps/external/cnp_connectx4lx.pcap"));
        let r = parse_frame(frame, false, &ParserConfig::default());
        assert_eq!(r.class, FrameClass::Roce, "{r:?}");
        assert_eq!(r.opcode, Some(0x81));
        assert_eq!(r.becn, Some(1));
        assert_eq!(r.dest_qp, Some(0x000118));
        assert_eq!((r.dscp, r.ecn), (Some(48), Some(2)));
        assert_eq!(r.udp_sport, Some(0));
        // Known answer from the README of pcaps/external: 82 fd 00 2a on the wire.
        assert_eq!(r.icrc, Some(0x82FD_002A));
        assert_eq!(r.icrc_ok, Some(true));
        assert_eq!(r.payload_len, Some(0));
    }

    #[test]
    fn external_rc_read_request() {
        let frame = only_frame(include_bytes!("../../pcaps/external/rc_read_request_reth.pcap"));
        let r = parse_frame(frame, false, &ParserConfig::default());
        assert_eq!(r.class, FrameClass::Roce, "{r:?}");
        assert_eq!(r.opcode, Some(0x0C));
        assert_eq!(r.dest_qp, Some(0x11));
        assert_eq!(r.psn, Some(5_557_091));
        assert_eq!(r.ack_req, Some(1));
        assert_eq!(
            (r.reth_va, r.reth_rkey, r.reth_dma_len),
            (Some(0x0000_7FEE_260F_B000), Some(0x2B8), Some(0x1_0000))
        );
        assert_eq!(r.icrc, Some(0x08C6_154A));
        assert_eq!(r.icrc_ok, Some(true));
    }

    #[test]
    fn flipped_payload_bit_fails_icrc_but_variant_bits_do_not() {
        let mut frame = only_frame(include_bytes!("../../pcaps/external/cnp_connectx4lx.pcap")).to_vec();
        // ECN and TTL are variant: re-marking CE in a switch keeps the ICRC.
        frame[15] |= 0x03;
        frame[22] -= 1;
        // Keep the IPv4 checksum right after the edits.
        Ipv4Packet::new_unchecked(&mut frame[14..34]).fill_checksum();
        let r = parse_frame(&frame, false, &ParserConfig::default());
        assert_eq!((r.class, r.icrc_ok, r.ecn), (FrameClass::Roce, Some(true), Some(3)));
        frame[60] ^= 0x01; // a reserved CNP byte: invariant
        let r = parse_frame(&frame, false, &ParserConfig::default());
        assert_eq!(r.error, Some(ParseError::BadIcrc));
    }

    #[test]
    fn empty_and_mac_error_frames() {
        let r = parse_frame(&[], false, &ParserConfig::default());
        assert_eq!((r.class, r.error, r.eth_type), (FrameClass::Error, Some(ParseError::TruncatedEth), None));
        let frame = only_frame(include_bytes!("../../pcaps/external/cnp_connectx4lx.pcap"));
        let r = parse_frame(frame, true, &ParserConfig::default());
        assert_eq!((r.error, r.opcode), (Some(ParseError::MacError), None));
    }

    #[test]
    fn external_pause_frames_from_ax88772() {
        // Two 60-byte frames, each after a 16-byte record header.
        let pcap = include_bytes!("../../pcaps/external/pause_ax88772.pcap");
        for (at, time) in [(40, 0), (40 + 60 + 16, 0xFFFF)] {
            let r = parse_frame(&pcap[at..at + 60], false, &ParserConfig::default());
            assert_eq!((r.class, r.mac_control_opcode, r.pause_time), (FrameClass::FlowControl, Some(1), Some(time)));
            assert_eq!(r.eth_dst, Some(MacAddr([0x01, 0x80, 0xC2, 0, 0, 1])));
        }
    }

    /// A PFC frame written out byte by byte (IEEE 802.3 Annex 31D): priorities
    /// 0 and 3 enabled, padded to the 60-byte minimum.
    fn pfc_bytes() -> Vec<u8> {
        let mut f =
            vec![0x01, 0x80, 0xC2, 0x00, 0x00, 0x01, 0x02, 0, 0, 0, 0, 0x07, 0x88, 0x08, 0x01, 0x01, 0x00, 0x09];
        f.extend_from_slice(&[0xFF, 0xFF, 0, 0, 0, 0, 0x00, 0x10, 0, 0, 0, 0, 0, 0, 0, 0]);
        f.resize(60, 0);
        f
    }

    #[test]
    fn pfc_and_pause_frames() {
        let config = ParserConfig::default();
        let r = parse_frame(&pfc_bytes(), false, &config);
        assert_eq!((r.class, r.error, r.mac_control_opcode), (FrameClass::FlowControl, None, Some(0x0101)));
        assert_eq!((r.pfc_enable, r.pfc_quanta), (Some(9), Some([0xFFFF, 0, 0, 0x10, 0, 0, 0, 0])));
        assert_eq!((r.pause_time, r.ip_version), (None, None));

        let mut pause = pfc_bytes();
        pause[14] = 0x00; // opcode 0x0001, pause time 0x0009
        let r = parse_frame(&pause, false, &config);
        assert_eq!(
            (r.class, r.mac_control_opcode, r.pause_time, r.pfc_enable),
            (FrameClass::FlowControl, Some(1), Some(9), None)
        );

        // Short: the PFC parameters end at byte 34, the PAUSE ones at 18.
        let r = parse_frame(&pfc_bytes()[..33], false, &config);
        assert_eq!(
            (r.error, r.mac_control_opcode, r.eth_type),
            (Some(ParseError::TruncatedMacControl), None, Some(0x8808))
        );
        assert_eq!(parse_frame(&pfc_bytes()[..34], false, &config).class, FrameClass::FlowControl);
        assert_eq!(parse_frame(&pause[..17], false, &config).error, Some(ParseError::TruncatedMacControl));
        assert_eq!(parse_frame(&pause[..18], false, &config).class, FrameClass::FlowControl);
        assert_eq!(parse_frame(&pause[..15], false, &config).error, Some(ParseError::TruncatedMacControl));

        let mut unknown = pfc_bytes();
        unknown[14] = 0x00;
        unknown[15] = 0x02; // GATE (EPON): not flow control
        let r = parse_frame(&unknown[..16], false, &config);
        assert_eq!((r.error, r.mac_control_opcode), (Some(ParseError::UnknownMacControlOpcode), Some(2)));
    }
}
