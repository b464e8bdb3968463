//! The captures of valid and non-RoCE frames.

use metaroce_golden::frame::{mac_control_frame, MIN_FRAME_LEN};
use metaroce_golden::wire::{
    ethertype, ip_proto, CnpRepr, EthernetRepr, FairShare, MacControlRepr, PFC_PRIORITIES, ROCE_V2_UDP_PORT,
};

use super::entry::{roce, Capture};
use crate::addresses::{host_ipv4, host_ipv6, host_mac};
use crate::capture::GenFrame;
use crate::dice::seq_value;
use crate::stimuli::{carried_opcodes, tagged_mac_control_frame, RoceFrame, L3};

/// The valid captures, in the order `gen` writes them.
pub(super) fn captures() -> Vec<Capture> {
    vec![
        valid("opcodes.pcap", opcodes()),
        valid("vlan.pcap", vlan()),
        valid("ipv4_options.pcap", ipv4_options()),
        valid("ipv6.pcap", ipv6()),
        valid("ecn_dscp.pcap", ecn_dscp()),
        valid("pad_cnt.pcap", pad_cnt()),
        valid("frame_sizes.pcap", frame_sizes()),
        valid("non_roce.pcap", non_roce()),
        valid("flow_control.pcap", flow_control()),
        valid("back_to_back.pcap", back_to_back()),
        valid("cnp_tags.pcap", cnp_tags()),
    ]
}

fn valid(name: &str, frames: Vec<Vec<u8>>) -> Capture {
    Capture {
        name: name.to_string(),
        frames: frames.into_iter().map(GenFrame::ok).collect(),
        expect_error: None,
        nic: None,
    }
}

fn opcodes() -> Vec<Vec<u8>> {
    carried_opcodes().into_iter().enumerate().map(|(i, op)| roce(op, i as u32).build()).collect()
}

fn vlan() -> Vec<Vec<u8>> {
    let (c, s) = (ethertype::VLAN_CTAG, ethertype::VLAN_STAG);
    let stacks: Vec<Vec<(u16, u8, u16)>> = vec![
        vec![],
        vec![(c, 0, 1)],
        vec![(c, 3, 100)],
        vec![(c, 7, 4094)],
        vec![(s, 5, 200), (c, 3, 300)],
        vec![(c, 1, 10), (c, 2, 20)],
        vec![(s, 6, 4095), (s, 0, 0)],
        // A third tag is beyond what the parser strips: non_roce.
        vec![(s, 1, 1), (c, 2, 2), (c, 3, 3)],
    ];
    let mut frames = Vec::new();
    for (i, stack) in stacks.iter().enumerate() {
        let seq = 1000 + i as u32;
        frames.push(roce(0x04, seq).tagged(stack).build());
        frames.push(roce(0x0A, seq).tagged(stack).ipv6(seq).build());
        frames.push(roce(0x81, seq).tagged(stack).build());
    }
    frames
}

fn ipv4_options() -> Vec<Vec<u8>> {
    (5..=15u32)
        .map(|ihl| {
            let words = (ihl - 5) as usize;
            // NOPs, then End of Option List, as senders pad options.
            let mut options = vec![0x01; words * 4];
            if let Some(last) = options.last_mut() {
                *last = 0x00;
            }
            let mut f = roce(0x0B, 2000 + ihl);
            f.l3 = L3::V4 { options };
            f.build()
        })
        .collect()
}

fn ipv6() -> Vec<Vec<u8>> {
    carried_opcodes()
        .into_iter()
        .enumerate()
        .map(|(i, op)| {
            let seq = 3000 + i as u32;
            let mut f = roce(op, seq).ipv6(seq_value(seq, 30) as u32);
            f.dscp = (seq_value(seq, 31) & 0x3F) as u8;
            f.ecn = (seq_value(seq, 32) & 3) as u8;
            f.build()
        })
        .collect()
}

fn ecn_dscp() -> Vec<Vec<u8>> {
    let mut frames = Vec::new();
    for (i, &dscp) in [0u8, 10, 26, 46, 48, 63].iter().enumerate() {
        for ecn in 0..4u8 {
            let seq = 4000 + (i as u32) * 4 + ecn as u32;
            for v6 in [false, true] {
                let mut f = roce(0x01, seq);
                if v6 {
                    f = f.ipv6(seq);
                }
                f.dscp = dscp;
                f.ecn = ecn;
                frames.push(f.build());
            }
        }
    }
    frames
}

fn pad_cnt() -> Vec<Vec<u8>> {
    (0..16usize)
        .map(|len| RoceFrame::new(0x02, 5000 + len as u32).with_payload(len, 5000 + len as u32).build())
        .collect()
}

fn frame_sizes() -> Vec<Vec<u8>> {
    let mut frames = Vec::new();
    // RC SEND only with no payload is 58 bytes: padded to the 60-byte minimum.
    frames.push(RoceFrame::new(0x04, 6000).build());
    // Every length from one beat of 64 bits to several beats of 512.
    for payload in 0..=200usize {
        frames.push(RoceFrame::new(0x00, 6001 + payload as u32).with_payload(payload, 6001).build());
    }
    for (i, &payload) in [1024usize, 4096, 8192, 9000 - 62].iter().enumerate() {
        frames.push(RoceFrame::new(0x0A, 6300 + i as u32).with_payload(payload, 6300).build());
    }
    frames
}

fn non_roce() -> Vec<Vec<u8>> {
    let eth = |ethertype: u16, body: &[u8]| {
        let mut f = EthernetRepr { dst_addr: host_mac(2), src_addr: host_mac(1), ethertype }.to_bytes().to_vec();
        f.extend_from_slice(body);
        f.resize(f.len().max(MIN_FRAME_LEN), 0);
        f
    };
    let mut frames = Vec::new();
    // ARP request.
    let mut arp = vec![0x00, 0x01, 0x08, 0x00, 6, 4, 0x00, 0x01];
    arp.extend_from_slice(&host_mac(1));
    arp.extend_from_slice(&host_ipv4(1));
    arp.extend_from_slice(&[0; 6]);
    arp.extend_from_slice(&host_ipv4(2));
    frames.push(eth(ethertype::ARP, &arp));
    // RoCEv1: a GRH (IPv6-like, next header 0x1B) and BTH over EtherType 0x8915.
    let mut grh = vec![0x60, 0, 0, 0, 0, 16, 0x1B, 64];
    grh.extend_from_slice(&host_ipv6(1));
    grh.extend_from_slice(&host_ipv6(2));
    grh.extend(RoceFrame::new(0x04, 7000).bth.to_bytes());
    frames.push(eth(ethertype::ROCE_V1, &grh));
    // LLDP.
    frames.push(eth(0x88CC, &[0x02, 0x07, 0x04, 0x02, 0, 0, 0, 0, 1, 0, 0]));
    // TCP over IPv4, with a 20-byte TCP header where UDP would be.
    let mut tcp = roce(0x04, 7001);
    tcp.ip_proto = ip_proto::TCP;
    frames.push(tcp.build());
    // UDP to other ports: DNS, and a RoCE source port to a non-RoCE port.
    let mut dns = roce(0x04, 7002);
    dns.udp_dport = 53;
    frames.push(dns.build());
    let mut reverse = roce(0x04, 7003);
    reverse.udp_sport = ROCE_V2_UDP_PORT;
    reverse.udp_dport = 50000;
    frames.push(reverse.build());
    // IPv6 ICMPv6 and "no next header".
    for nh in [58u8, 59] {
        let mut f = roce(0x04, 7004 + nh as u32).ipv6(1);
        f.ip_proto = nh;
        frames.push(f.build());
    }
    // A RoCE frame behind two VLAN tags still counts; behind three it does not.
    let (c, s) = (ethertype::VLAN_CTAG, ethertype::VLAN_STAG);
    frames.push(roce(0x04, 7100).tagged(&[(s, 0, 1), (c, 0, 2), (c, 0, 3)]).build());
    frames
}

/// PAUSE and PFC frames (IEEE 802.3 Annex 31B, 31D) between RoCE frames:
/// enable vectors from none to all, pause times from 0 (resume) to 0xFFFF,
/// the reserved enable byte set, behind VLAN tags, and unpadded frames that
/// end right after their parameters.
fn flow_control() -> Vec<Vec<u8>> {
    let pfc = |class_enable: u16, seq: u32| MacControlRepr::Pfc {
        class_enable,
        pause_times: std::array::from_fn(|p| seq_value(seq, 60 + p as u32) as u16),
    };
    let mut bodies = vec![
        pfc(0x00FF, 9000),
        pfc(0x0000, 9001),
        MacControlRepr::Pfc { class_enable: 0x0008, pause_times: [0, 0, 0, 0xFFFF, 0, 0, 0, 0] },
        MacControlRepr::Pfc { class_enable: 0x0008, pause_times: [0; PFC_PRIORITIES] },
        pfc(0xA501, 9002),
        MacControlRepr::Pause { pause_time: 0xFFFF },
        MacControlRepr::Pause { pause_time: 0 },
        MacControlRepr::Pause { pause_time: seq_value(9003, 60) as u16 },
    ];
    bodies.extend((0..PFC_PRIORITIES).map(|p| pfc(1 << p, 9010 + p as u32)));
    let mut frames = Vec::new();
    for (i, body) in bodies.iter().enumerate() {
        frames.push(mac_control_frame(host_mac(1 + (i % 4) as u8), body));
        if i % 3 == 0 {
            frames.push(roce(0x04, 9100 + i as u32).build());
        }
    }
    // Unpadded: the frame ends with the parameters.
    for body in [pfc(0x0011, 9020), MacControlRepr::Pause { pause_time: 0x1234 }] {
        let mut f = mac_control_frame(host_mac(5), &body);
        f.truncate(EthernetRepr::LEN + body.buffer_len());
        frames.push(f);
    }
    // Behind one and two VLAN tags (802.1Qbb sends PFC untagged; the parser
    // strips tags before any EtherType).
    let (c, s) = (ethertype::VLAN_CTAG, ethertype::VLAN_STAG);
    for (seq, tags) in [(9030u32, vec![(c, 3u8, 100u16)]), (9031, vec![(s, 5, 200), (c, 7, 300)])] {
        frames.push(tagged_mac_control_frame(&tags, host_mac(6), pfc(0x00F0, seq)));
    }
    frames
}

/// CNPs whose reserved bytes are zero, or carry MetaRoCE's tag: version 1
/// (the CE extent) and version 2 (the extent and the fair share, each flag
/// alone and together, the reserved flag bits set, shares from 1 to 1.0),
/// over IPv4, IPv6 and a VLAN tag; and tags no MetaRoCE reader takes
/// (version 0 and 3, another first byte), whose bytes the record leaves out
/// (`SPEC.md` §6.3, §6.9).
fn cnp_tags() -> Vec<Vec<u8>> {
    let v2 = |ce, proactive, refresh, share, active, seq| FairShare { ce, proactive, refresh, share, active, seq };
    let mut reserved: Vec<[u8; 16]> = vec![
        CnpRepr::default().to_bytes(),
        CnpRepr { extent: Some(1), share: None }.to_bytes(),
        CnpRepr { extent: Some(32768), share: None }.to_bytes(),
    ];
    for (i, share) in [
        v2(true, false, false, 2048, 16, 1),
        v2(false, true, false, 512, 64, 2),
        v2(false, false, true, 512, 64, 2),
        v2(true, true, true, 32768, 1, 0xFFFF),
        v2(false, false, false, 1, 65535, 0),
    ]
    .into_iter()
    .enumerate()
    {
        reserved.push(CnpRepr { extent: Some(1000 * i as u16), share: Some(share) }.to_bytes());
    }
    let mut flags_reserved = CnpRepr { extent: Some(7), share: Some(v2(true, false, false, 99, 3, 5)) }.to_bytes();
    flags_reserved[4] |= 0xF8;
    flags_reserved[5] = 0xAA;
    reserved.push(flags_reserved);
    // Version 1 with v2's bytes after its extent: they are not its.
    let mut v1_longer = CnpRepr { extent: Some(11), share: Some(v2(true, true, true, 8, 9, 10)) }.to_bytes();
    v1_longer[1] = 0x01;
    reserved.push(v1_longer);
    for tag in [[0x4D, 0x00], [0x4D, 0x03], [0x4E, 0x02]] {
        let mut bytes = CnpRepr { extent: Some(9), share: Some(v2(true, true, false, 77, 2, 3)) }.to_bytes();
        bytes[..2].copy_from_slice(&tag);
        reserved.push(bytes);
    }
    let mut frames = Vec::new();
    for (i, bytes) in reserved.iter().enumerate() {
        let seq = 3000 + i as u32;
        let mut cnp = roce(0x81, seq);
        cnp.bth.becn = true;
        cnp.ext = bytes.to_vec();
        frames.push(cnp.build());
        if i % 3 == 1 {
            frames.push(cnp.clone().ipv6(seq).build());
            frames.push(cnp.tagged(&[(ethertype::VLAN_CTAG, 6, 42)]).build());
        }
    }
    // A SEND whose payload starts as a v2 CNP's reserved bytes: not a CNP.
    let mut send = roce(0x04, 3100);
    send.payload = reserved[4].to_vec();
    frames.push(send.build());
    frames
}

/// A long mix of small frames sent back to back: the throughput case.
fn back_to_back() -> Vec<Vec<u8>> {
    let ops = carried_opcodes();
    (0..2000u32)
        .map(|i| {
            let op = ops[(seq_value(i, 50) % ops.len() as u64) as usize];
            let mut f = RoceFrame::new(op, 8000 + i);
            if seq_value(i, 51).is_multiple_of(4) {
                f = f.ipv6(i);
            }
            f.ecn = (seq_value(i, 52) & 3) as u8;
            f.build()
        })
        .collect()
}
