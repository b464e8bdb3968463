use super::*;
use crate::frame::{RoceRepr, UdpFrameRepr};

/// The single frame of a one-packet classic pcap (24-byte file header,
/// 16-byte record header).
fn only_frame(pcap: &[u8]) -> &[u8] {
    &pcap[40..]
}

const CNP: &[u8] = include_bytes!("../../../pcaps/external/cnp_connectx4lx.pcap");
const READ: &[u8] = include_bytes!("../../../pcaps/external/rc_read_request_reth.pcap");

#[test]
fn views_read_the_fields_in_place() {
    let frame = only_frame(CNP);
    let eth = EthernetFrame::new_checked(frame).unwrap();
    assert_eq!(eth.ethertype(), ethertype::IPV4);
    let ip = Ipv4Packet::new_checked(&frame[14..]).unwrap();
    assert_eq!((ip.version(), ip.header_len(), ip.dscp(), ip.ecn()), (4, 20, 48, 2));
    assert!(ip.verify_checksum() && ip.dont_frag() && !ip.is_fragment());
    let udp = UdpPacket::new_checked(&frame[34..]).unwrap();
    assert_eq!(udp.dst_port(), ROCE_V2_UDP_PORT);
    let bth = Bth::new_checked(&frame[42..]).unwrap();
    assert_eq!((bth.opcode(), bth.becn(), bth.dest_qp()), (0x81, true, 0x118));
    assert_eq!(Bth::new_checked(&frame[..11]), Err(Error::Truncated));
}

/// Parsing every header of a real frame into Reprs and emitting them again
/// gives the frame back, ICRC included.
#[test]
fn reprs_parse_and_emit_real_frames_back() {
    for (pcap, ext_len) in [(CNP, 16), (READ, 16)] {
        let frame = only_frame(pcap);
        let ethernet = EthernetRepr::parse(&EthernetFrame::new_checked(frame).unwrap());
        let ip = Ipv4Repr::parse(&Ipv4Packet::new_checked(&frame[14..]).unwrap()).unwrap();
        let udp = UdpRepr::parse(&UdpPacket::new_checked(&frame[34..]).unwrap());
        let bth = BthRepr::parse(&Bth::new_checked(&frame[42..]).unwrap());
        let ext = &frame[54..54 + ext_len];
        let end = 14 + usize::from(Ipv4Packet::new_unchecked(&frame[14..]).total_len()) - 4;
        let rebuilt = RoceRepr {
            headers: UdpFrameRepr { ethernet, vlans: &[], ip: IpRepr::V4(ip), udp },
            bth,
            ext,
            payload: &frame[54 + ext_len..end - usize::from(bth.pad_cnt)],
        }
        .emit();
        assert_eq!(rebuilt, frame);
    }
}

#[test]
fn extension_headers_round_trip() {
    let reth = RethRepr { va: 0x0123_4567_89AB_CDEF, rkey: 0xDEAD_BEEF, dma_len: 0x1_0000 };
    assert_eq!(RethRepr::parse(&Reth::new_checked(&reth.to_bytes()[..]).unwrap()), reth);
    let deth = DethRepr { qkey: 0x8001_0000, reserved: 0, src_qp: 0xAB_CDEF };
    let bytes = deth.to_bytes();
    assert_eq!(bytes, [0x80, 0x01, 0, 0, 0, 0xAB, 0xCD, 0xEF]);
    assert_eq!(DethRepr::parse(&Deth::new_unchecked(&bytes[..])), deth);
    let aeth = AethRepr { syndrome: 0x1F, msn: 0x12_3456 };
    assert_eq!(AethRepr::parse(&Aeth::new_unchecked(&aeth.to_bytes()[..])), aeth);
    let atomic = AtomicEthRepr { va: 8, rkey: 9, swap_add: 10, compare: 11 };
    assert_eq!(AtomicEthRepr::parse(&AtomicEth::new_unchecked(&atomic.to_bytes()[..])), atomic);
    let cnp = CnpRepr { extent: Some(16384), share: None };
    assert_eq!(cnp.to_bytes(), [0x4D, 0x01, 0x40, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    assert_eq!(CnpRepr::parse(&CnpPayload::new_unchecked(&cnp.to_bytes()[..])), cnp);
    assert_eq!(CnpRepr::default().to_bytes(), [0; 16]);
    let share = FairShare { ce: true, proactive: false, refresh: true, share: 2048, active: 16, seq: 0x1234 };
    let v2 = CnpRepr { extent: Some(3), share: Some(share) };
    assert_eq!(v2.to_bytes(), [0x4D, 0x02, 0, 3, 5, 0, 0x08, 0x00, 0, 16, 0x12, 0x34, 0, 0, 0, 0]);
    assert_eq!(CnpRepr::parse(&CnpPayload::new_unchecked(&v2.to_bytes()[..])), v2);
}

#[test]
fn vlan_and_ipv6_round_trip() {
    let tag = VlanRepr { pcp: 5, dei: true, vid: 4094, ethertype: ethertype::IPV6 };
    let mut bytes = [0u8; 4];
    tag.emit(&mut VlanTag::new_unchecked(&mut bytes[..]));
    assert_eq!(bytes, [0xBF, 0xFE, 0x86, 0xDD]);
    assert_eq!(VlanRepr::parse(&VlanTag::new_unchecked(&bytes[..])), tag);
    let ip = Ipv6Repr {
        dscp: 26,
        ecn: 3,
        flow_label: 0xABCDE,
        payload_len: 100,
        next_header: ip_proto::UDP,
        hop_limit: 64,
        src_addr: [1; 16],
        dst_addr: [2; 16],
    };
    let mut bytes = [0u8; 40];
    ip.emit(&mut Ipv6Packet::new_unchecked(&mut bytes[..]));
    assert_eq!(&bytes[..4], &[0x66, 0xBA, 0xBC, 0xDE]);
    assert_eq!(Ipv6Repr::parse(&Ipv6Packet::new_unchecked(&bytes[..])), Ok(ip));
}

#[test]
fn ipv4_options_count_in_the_header_and_its_checksum() {
    let options = [1, 1, 1, 0];
    let ip = Ipv4Repr { ttl: 64, protocol: ip_proto::UDP, options: &options, payload_len: 8, ..Ipv4Repr::default() };
    let mut bytes = [0u8; 24];
    ip.emit(&mut Ipv4Packet::new_unchecked(&mut bytes[..]));
    let view = Ipv4Packet::new_unchecked(&bytes[..]);
    assert_eq!((view.ihl(), view.total_len()), (6, 32));
    assert!(view.verify_checksum());
    assert_eq!(Ipv4Repr::parse(&view), Ok(ip));
    bytes[0] = 0x44;
    assert_eq!(Ipv4Repr::parse(&Ipv4Packet::new_unchecked(&bytes[..])), Err(Error::Malformed));
}
